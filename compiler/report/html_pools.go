package report

import (
	"strconv"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/cost"
)

// classCosts is each class's workload on each pool it lands on, grouped
// by pool in the report's pool order: a head row per pool (what it is,
// how many classes land on it, their cheapest to dearest workload), then
// its classes. HTMLRows class rows at most; past them, HTMLRows pools'
// head rows.
func (p *page) classCosts(r *check.Report) {
	c := r.Cost
	p.raw("<h3>Classes</h3>\n<p class=\"note\">Each class&#39;s workload (its replicas, or its gang) on each pool it lands on, as if that pool ran all of it, grouped by pool: each pool&#39;s head row names its product, capacity type, instance types and size, and how many classes land on it.</p>\n")
	at := make(map[string]int, len(r.Pools))
	for j, name := range r.Pools {
		at[name] = j
	}
	groups := make([][]int, len(r.Pools))
	var top float64
	for k, cc := range c.Classes {
		if j, ok := at[cc.Pool]; ok {
			groups[j] = append(groups[j], k)
		}
		if cc.Hourly != nil {
			top = max(top, *cc.Hourly)
		}
	}
	shown := min(len(c.Classes), HTMLRows)
	p.rowsCut(shown, len(c.Classes), "class and pool pairs")
	p.raw("<table class=\"bars\" id=\"class-cost\">\n<thead><tr><th>class</th><th>pool</th><th>instance type</th><th>capacity</th><th>nodes</th><th>per node</th><th>USD per hour</th></tr></thead>\n<tbody>\n")
	drawn, heads := 0, 0
	for j, g := range groups {
		if len(g) == 0 || heads == HTMLRows {
			continue
		}
		heads++
		p.raw("<tr class=\"group\"")
		p.attr("data-group", r.Pools[j])
		p.raw("><th colspan=\"7\" scope=\"rowgroup\">")
		p.text(r.Pools[j])
		if j < len(r.PoolInfo) {
			p.raw(" <span class=\"note\">")
			p.text(poolSummary(r.PoolInfo[j]))
			p.raw("</span>")
		}
		p.raw(" — ")
		p.count(len(g), "class lands", "classes land")
		p.raw(" on it</th></tr>\n")
		for _, k := range g {
			if drawn == shown {
				break
			}
			drawn++
			p.classCost(&c.Classes[k], top)
		}
	}
	if len(c.Classes) == 0 {
		p.raw("<tr><td colspan=\"7\">No class lands on a pool.</td></tr>\n")
	}
	p.raw("</tbody>\n</table>\n")
}

// classCost is one class's workload on one pool, its cost as a bar.
func (p *page) classCost(cc *cost.ClassCost, top float64) {
	p.raw("<tr")
	p.attr("data-class", cc.Class)
	p.attr("data-pool", cc.Pool)
	p.attr("data-type", cc.Type)
	p.attr("data-nodes", strconv.FormatInt(cc.Nodes, 10))
	p.attr("data-hourly", usdAttr(cc.Hourly))
	p.raw("><td>")
	p.text(cc.Class)
	p.raw("</td><td>")
	p.text(cc.Pool)
	p.raw("</td><td>")
	p.text(cc.Type)
	p.raw("</td><td>")
	p.raw(capacityType(cc.Spot))
	p.raw("</td><td class=\"num\">")
	p.int(cc.Nodes)
	p.raw("</td><td class=\"num\">")
	p.raw(money(cc.NodeHourly, false))
	p.raw("</td>")
	p.bar(cc.Hourly, top, cc.Unknown, nil)
	p.raw("</tr>\n")
}

// reserved is the fleet's capacity reservations, as the Markdown's table
// (reserved.go) lists them.
func (p *page) reserved(c *cost.Cost) {
	if len(c.Reserved) == 0 {
		return
	}
	p.raw("<section id=\"reserved\">\n<h3>Reserved capacity</h3>\n<p class=\"note\">Each capacity reservation, paid for while active whether instances run in it or not: a Capacity Block at its own price, an ODCR at its type&#39;s on-demand rate; a month is ")
	p.raw(strconv.Itoa(cost.HoursPerMonth))
	p.raw(" hours, a block is paid for its term. Used are the instances the workloads of the classes landing on its pool take of it, stranded the rest.</p>\n")
	shown := firstRows(p, c.Reserved, "reservations")
	rows := make([][]string, len(shown))
	for i, r := range shown {
		typ, term := "odcr", "-"
		if r.Block {
			typ, term = "capacity-block", money(r.Term, true)
		}
		i64 := func(n int64) string { return strconv.FormatInt(n, 10) }
		rows[i] = []string{r.Pool, r.Reservation, typ, r.InstanceType, r.Zone, i64(int64(r.Instances)), i64(int64(r.GPUs)), i64(int64(r.Used)), i64(int64(r.Stranded)), orNone(r.Start), orNone(r.End), money(r.NodeHourly, false), money(r.Hourly, true), money(r.Monthly, true), term}
	}
	p.table("reserved-capacity", []string{"pool", "reservation", "type", "instance type", "zone", "instances", "GPUs", "used", "stranded", "start", "end", "per instance", "per hour", "per month", "block, start to end"}, rows)
	p.raw("</section>\n")
}

// pools is every pool at max size, headed by what it is: the Markdown's
// "Pools at max size", with the pools' products and sizes.
func (p *page) pools(r *check.Report) {
	c := r.Cost
	if c.Fleet == nil {
		return
	}
	p.raw("<section id=\"pool-cost\">\n<h3>Pools at max size</h3>\n<p class=\"note\">Every node of each pool, all of its cheapest instance type and all of its dearest.</p>\n")
	shown := firstRows(p, c.Pools, "pools")
	rows := make([][]string, len(shown))
	for i, pc := range shown {
		what := capacityType(pc.Spot)
		if i < len(r.PoolInfo) && r.PoolInfo[i].Pool == pc.Pool {
			what = poolSummary(r.PoolInfo[i])
		}
		low, high := []string{"unknown", "unknown"}, []string{"unknown", "unknown"}
		if pc.Low != nil {
			low = []string{pc.Low.Type + " (" + money(pc.Low.NodeHourly, false) + ")", money(pc.Low.Hourly, true)}
		}
		if pc.High != nil {
			high = []string{pc.High.Type + " (" + money(pc.High.NodeHourly, false) + ")", money(pc.High.Hourly, true)}
		}
		rows[i] = append([]string{pc.Pool, what, strconv.FormatInt(pc.Nodes, 10)}, append(low, high...)...)
	}
	p.table("pools-at-max", []string{"pool", "product · capacity · types · size", "nodes", "cheapest type", "total", "dearest type", "total"}, rows)
	p.raw("</section>\n")
}
