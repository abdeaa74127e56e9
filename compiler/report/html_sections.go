package report

import (
	"strconv"

	"github.com/gpufleet/gpufleet/compiler/check"
)

// The page's sections that the Markdown report has too, in its order
// and under its headings: findings, admission, quota against capacity.

// findings lists the findings in the report's order, errors first, as
// the Markdown lists them, HTMLRows at most.
func (p *page) findings(r *check.Report) {
	p.raw("<section id=\"findings\">\n<h2>Findings</h2>\n")
	if len(r.Findings) == 0 {
		p.raw("<p id=\"no-findings\">None.</p>\n</section>\n")
		return
	}
	shown := firstRows(p, r.Findings, "findings")
	p.raw("<ul class=\"findings\">\n")
	for _, f := range shown {
		p.raw("<li")
		p.attr("class", f.Severity)
		p.attr("data-check", string(f.Check))
		if f.Class != "" {
			p.attr("data-class", f.Class)
		}
		if f.Tenant != "" {
			p.attr("data-tenant", f.Tenant)
		}
		p.raw("><strong>")
		p.text(f.Severity)
		p.raw("</strong> <code>")
		p.text(string(f.Check))
		p.raw("</code>: ")
		p.text(f.Message)
		p.raw("</li>\n")
	}
	p.raw("</ul>\n</section>\n")
}

// admission is how each Job and queued class is admitted, then placed:
// the Markdown's table (unitRow), HTMLRows at most.
func (p *page) admission(units []check.Unit) {
	if len(units) == 0 {
		return
	}
	p.raw("<section id=\"admission\">\n<h2>Admission, then placement</h2>\n")
	p.raw("<p>Kueue admits a queued workload as one unit (a Job&#39;s pods, a StatefulSet&#39;s replicas, each pod of a Deployment) and pins it to one flavor&#39;s pool; kube-scheduler then places the pinned pods there. A class may preempt, within its ClusterQueue, the tenant&#39;s classes listed; the others are protected from it.</p>\n")
	shown := firstRows(p, units, "units")
	rows := make([][]string, len(shown))
	for i, u := range shown {
		rows[i] = unitRow(u)
	}
	p.table("units", unitHead, rows)
	p.raw("</section>\n")
}

// quota is each resource's nominal quota against the fleet at max size.
func (p *page) quota(c []check.Commit) {
	p.raw("<section id=\"quota\">\n<h2>Quota against capacity</h2>\n")
	p.raw("<p>Each resource&#39;s nominal quota over the tenants&#39; ClusterQueues against the fleet&#39;s nodes at max size; a ratio over 1 is quota no node backs.</p>\n")
	rows := make([][]string, len(c))
	for i, q := range c {
		rows[i] = []string{q.Resource, q.Quota, q.Capacity, strconv.FormatFloat(q.Ratio, 'f', 2, 64)}
	}
	p.table("quota-capacity", []string{"resource", "nominal quota", "fleet at max size", "ratio"}, rows)
	p.raw("</section>\n")
}

// table writes a plain table of text cells, every one escaped.
func (p *page) table(id string, head []string, rows [][]string) {
	p.raw("<table class=\"plain\"")
	p.attr("id", id)
	p.raw(">\n<thead><tr>")
	for _, h := range head {
		p.raw("<th>")
		p.text(h)
		p.raw("</th>")
	}
	p.raw("</tr></thead>\n<tbody>\n")
	for _, row := range rows {
		p.raw("<tr>")
		for _, c := range row {
			p.raw("<td>")
			p.text(c)
			p.raw("</td>")
		}
		p.raw("</tr>\n")
	}
	if len(rows) == 0 {
		p.raw("<tr><td")
		p.attr("colspan", strconv.Itoa(len(head)))
		p.raw(">None.</td></tr>\n")
	}
	p.raw("</tbody>\n</table>\n")
}
