package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/cost"
)

// usdAttr is a price as data: JSON's number (the shortest that reads
// back), or "unknown".
func usdAttr(v *float64) string {
	if v == nil {
		return "unknown"
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}

// bar draws v of top as a bar and its figure; an unknown v as "unknown"
// with the reason on hover. under, if any, is drawn first, lighter: the
// other end of a range.
func (p *page) bar(v *float64, top float64, why string, under *float64) {
	p.raw("<td class=\"bar\">")
	if v == nil {
		p.raw("<span class=\"unknown\"")
		if why != "" {
			p.attr("title", why)
		}
		p.raw(">unknown</span></td>")
		return
	}
	p.raw("<span class=\"track\">")
	if under != nil {
		p.raw("<span class=\"fill high\" style=\"width:")
		p.raw(percent(*under, top))
		p.raw("\"></span>")
	}
	p.raw("<span class=\"fill\" style=\"width:")
	p.raw(percent(*v, top))
	p.raw("\"></span></span>")
	p.raw(money(v, true))
	p.raw("</td>")
}

// percent is v of top, to a tenth of a percent.
func percent(v, top float64) string {
	if top <= 0 || v <= 0 {
		return "0%"
	}
	return strconv.FormatFloat(math.Round(min(v/top, 1)*1000)/10, 'f', 1, 64) + "%"
}

// firstRows are the rows of a table the page draws, HTMLRows at most,
// after a note of how many it leaves out (rowsCut).
func firstRows[T any](p *page, all []T, what string) []T {
	shown := all[:min(len(all), HTMLRows)]
	p.rowsCut(len(shown), len(all), what)
	return shown
}

// rowsCut says how many of a table's rows are left out.
func (p *page) rowsCut(shown, all int, what string) {
	if shown == all {
		return
	}
	p.raw("<p class=\"note\"><strong>Not every row is drawn:</strong> the first ")
	p.raw(thousands(int64(shown)))
	p.raw(" of ")
	p.raw(thousands(int64(all)))
	p.raw(" ")
	p.raw(what)
	p.raw("; report/placement.json and placement.md have every one.</p>\n")
}

// cost is each class's and each tenant's cost as bars, and the fleet's.
func (p *page) cost(r *check.Report) {
	c := r.Cost
	p.raw("<section id=\"cost\">\n<h2>Cost</h2>\n")
	if c == nil {
		p.raw("<p>The report has no cost figures.</p>\n</section>\n")
		return
	}
	p.raw("<p>USD per hour. On-demand prices: ")
	p.text(c.Source)
	p.raw("; the spec&#39;s <code>prices</code> override them. Spot prices come only from the spec. A price neither gives is <span class=\"unknown\">unknown</span>, never guessed; hover it for why.</p>\n")
	if f := c.Fleet; f != nil {
		p.raw("<p id=\"fleet-cost\"")
		p.attr("data-low", usdAttr(f.Low))
		p.attr("data-high", usdAttr(f.High))
		p.raw(">The fleet at max size: ")
		if f.Low == nil || f.High == nil {
			p.raw("<span class=\"unknown\"")
			p.attr("title", f.Unknown)
			p.raw(">unknown</span>, since a pool&#39;s price is")
		} else {
			p.raw("<strong>")
			p.raw(money(f.Low, true))
			p.raw("</strong> to <strong>")
			p.raw(money(f.High, true))
			p.raw("</strong> per hour (")
			p.raw(monthly(f.Low))
			p.raw(" to ")
			p.raw(monthly(f.High))
			p.raw(" per month of " + strconv.Itoa(cost.HoursPerMonth) + " hours)")
		}
		p.raw(".</p>\n")
	}

	p.classCosts(r)

	p.raw("<h3>Tenants</h3>\n<p class=\"note\">Each tenant&#39;s nominal quota at full use (GPUs, or CPUs for a tenant without GPU quota), priced per unit a node advertises: the dark bar at the cheapest pool its classes land on, the light one at the dearest.</p>\n")
	tenants := firstRows(p, c.Tenants, "tenants")
	var top float64
	for _, t := range c.Tenants {
		if t.High != nil && t.High.Hourly != nil {
			top = max(top, *t.High.Hourly)
		}
	}
	p.raw("<table class=\"bars\" id=\"tenant-cost\">\n<thead><tr><th>tenant</th><th>quota</th><th>cheapest pool</th><th>dearest pool</th><th>USD per hour, cheapest to dearest</th></tr></thead>\n<tbody>\n")
	for _, t := range tenants {
		var low, high *float64
		lowPool, highPool := "unknown", "unknown"
		if t.Low != nil {
			low, lowPool = t.Low.Hourly, t.Low.Pool+" ("+t.Low.Type+")"
		}
		if t.High != nil {
			high, highPool = t.High.Hourly, t.High.Pool+" ("+t.High.Type+")"
		}
		p.raw("<tr")
		p.attr("data-tenant", t.Tenant)
		p.attr("data-low", usdAttr(low))
		p.attr("data-high", usdAttr(high))
		p.raw("><td>")
		p.text(t.Tenant)
		if t.Unknown != "" && low != nil {
			p.raw(" <span class=\"warn\"")
			p.attr("title", "some prices left out: "+t.Unknown)
			p.raw(">⚠</span>")
		}
		p.raw("</td><td>")
		if t.Resource == "" {
			p.raw("none")
		} else {
			p.text(strconv.FormatFloat(t.Quota, 'f', -1, 64) + " " + t.Resource)
		}
		p.raw("</td><td>")
		p.text(lowPool)
		p.raw("</td><td>")
		p.text(highPool)
		p.raw("</td>")
		if low == nil || high == nil {
			p.bar(nil, top, t.Unknown, nil)
		} else {
			p.raw("<td class=\"bar\"><span class=\"track\"><span class=\"fill high\" style=\"width:")
			p.raw(percent(*high, top))
			p.raw("\"></span><span class=\"fill\" style=\"width:")
			p.raw(percent(*low, top))
			p.raw("\"></span></span>")
			p.raw(money(low, true))
			if *high != *low {
				p.raw(" to ")
				p.raw(money(high, true))
			}
			p.raw("</td>")
		}
		p.raw("</tr>\n")
	}
	if len(c.Tenants) == 0 {
		p.raw("<tr><td colspan=\"5\">No tenant.</td></tr>\n")
	}
	p.raw("</tbody>\n</table>\n")
	p.stranded(c)
	p.reserved(c)
	p.pools(r)
	p.raw("</section>\n")
}

// stranded is each GPU pool's stranded GPUs as bars: per node, and over
// the pool at max size.
func (p *page) stranded(c *cost.Cost) {
	p.raw("<section id=\"stranded\">\n<h3>Stranded GPUs</h3>\n")
	p.raw("<p>GPUs (or their shared replicas or MIG slices) on each node that no packing of the classes landing on the pool can use; the bar is the pool at max size.</p>\n")
	if len(c.Stranded) == 0 {
		p.raw("<p id=\"no-stranded\">No pool has GPUs.</p>\n</section>\n")
		return
	}
	shown := firstRows(p, c.Stranded, "pool and instance type pairs")
	var top float64
	for _, s := range c.Stranded {
		top = max(top, float64(s.Stranded*s.Nodes))
	}
	p.raw("<table class=\"bars\" id=\"stranded-gpus\">\n<thead><tr><th>pool</th><th>instance type</th><th>resource</th><th>per node</th><th>usable</th><th>stranded per node</th><th>nodes at max size</th><th>stranded at max size</th><th>classes</th></tr></thead>\n<tbody>\n")
	for _, s := range shown {
		total := s.Stranded * s.Nodes
		p.raw("<tr")
		p.attr("data-pool", s.Pool)
		p.attr("data-type", s.Type)
		p.attr("data-resource", s.Resource)
		p.attr("data-per-node", strconv.FormatInt(s.PerNode, 10))
		p.attr("data-usable", strconv.FormatInt(s.Usable, 10))
		p.attr("data-stranded", strconv.FormatInt(s.Stranded, 10))
		p.attr("data-nodes", strconv.FormatInt(s.Nodes, 10))
		p.attr("data-total", strconv.FormatInt(total, 10))
		p.raw("><td>")
		p.text(s.Pool)
		p.raw("</td><td>")
		p.text(s.Type)
		p.raw("</td><td>")
		p.text(s.Resource)
		for _, n := range []int64{s.PerNode, s.Usable, s.Stranded, s.Nodes} {
			p.raw("</td><td class=\"num\">")
			p.int(n)
		}
		p.raw("</td><td class=\"bar\"><span class=\"track\"><span class=\"fill stranded\" style=\"width:")
		p.raw(percent(float64(total), top))
		p.raw("\"></span></span>")
		p.int(total)
		p.raw("</td><td class=\"classes\">")
		if len(s.Classes) == 0 {
			p.raw("none")
		}
		p.text(strings.Join(s.Classes, ", "))
		p.raw("</td></tr>\n")
	}
	p.raw("</tbody>\n</table>\n</section>\n")
}
