package report

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/cost"
)

// tenants is the page's per-tenant view, which the Markdown spreads over
// its sections: each tenant's quota and its cost, the classes Kueue
// admits for it and the flavors they are pinned to, and the findings that
// name it. HTMLRows tenants at most.
func (p *page) tenants(r *check.Report) {
	units := map[string][]*check.Unit{}
	for i := range r.Units {
		if u := &r.Units[i]; u.Tenant != "" {
			units[u.Tenant] = append(units[u.Tenant], u)
		}
	}
	priced := map[string]*cost.TenantCost{}
	if r.Cost != nil {
		for i := range r.Cost.Tenants {
			priced[r.Cost.Tenants[i].Tenant] = &r.Cost.Tenants[i]
		}
	}
	findings := map[string]int{}
	for _, f := range r.Findings {
		if f.Tenant != "" {
			findings[f.Tenant]++
		}
	}
	var names []string
	for t := range units {
		names = append(names, t)
	}
	for t := range priced {
		if units[t] == nil {
			names = append(names, t)
		}
	}
	slices.Sort(names)
	p.raw("<section id=\"tenants\">\n<h2>Per tenant</h2>\n")
	if len(names) == 0 {
		p.raw("<p>No tenant.</p>\n</section>\n")
		return
	}
	p.raw("<p>Each tenant: its nominal quota and what it costs at full use (cheapest to dearest pool its classes land on), each class Kueue admits for it and the flavors it is pinned to (placed of admitted), and the findings that name it.</p>\n")
	shown := firstRows(p, names, "tenants")
	p.raw("<table class=\"plain\" id=\"per-tenant\">\n<thead><tr><th>tenant</th><th>quota</th><th>USD per hour</th><th>classes admitted (flavors)</th><th>findings</th></tr></thead>\n<tbody>\n")
	for _, t := range shown {
		quota, usd := "none", "unknown"
		if tc := priced[t]; tc != nil {
			if tc.Resource != "" {
				quota = strconv.FormatFloat(tc.Quota, 'f', -1, 64) + " " + tc.Resource
			}
			if tc.Low != nil && tc.High != nil && tc.Low.Hourly != nil && tc.High.Hourly != nil {
				usd = money(tc.Low.Hourly, true)
				if *tc.High.Hourly != *tc.Low.Hourly {
					usd += " to " + money(tc.High.Hourly, true)
				}
			}
		}
		var classes []string
		for _, u := range units[t] {
			row := unitRow(*u)
			classes = append(classes, u.Class+" ("+row[5]+")")
		}
		if len(classes) == 0 {
			classes = []string{"none"}
		}
		p.raw("<tr")
		p.attr("data-tenant", t)
		p.raw("><td>")
		p.text(t)
		p.raw("</td><td>")
		p.text(quota)
		p.raw("</td><td class=\"num\">")
		p.text(usd)
		p.raw("</td><td>")
		p.text(strings.Join(classes, ", "))
		p.raw("</td><td class=\"num\">")
		p.int(int64(findings[t]))
		p.raw("</td></tr>\n")
	}
	p.raw("</tbody>\n</table>\n</section>\n")
}
