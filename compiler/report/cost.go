package report

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check/cost"
)

// costMarkdown writes the cost and stranded-GPU tables, for a finance or
// platform lead: every figure in USD per hour, "unknown" where no price
// is given, with the reasons after the table.
func costMarkdown(b *bytes.Buffer, c *cost.Cost) {
	if c == nil {
		return
	}
	b.WriteString("\n## Cost\n\n")
	fmt.Fprintf(b, "USD per hour. On-demand prices: %s; the spec's `prices` override them. Spot prices come only from the spec. A price neither gives is `unknown`, never guessed.\n\n", c.Source)
	b.WriteString("### Classes\n\nEach class's workload (its replicas, or its gang) on each pool it lands on, as if that pool ran all of it: the fewest nodes of the instance type the checker credits that hold its pods.\n\n")
	b.WriteString("| class | pool | instance type | capacity | pods | pods per node | nodes | per node | total |\n|---|---|---|---|---|---|---|---|---|\n")
	var unknown []string
	for _, cc := range c.Classes {
		capacity := "on-demand"
		if cc.Spot {
			capacity = "spot"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %d | %d | %s | %s |\n", cc.Class, cc.Pool, cc.Type, capacity, cc.Pods, cc.PodsPerNode, cc.Nodes, money(cc.NodeHourly, false), money(cc.Hourly, true))
		if cc.Unknown != "" {
			unknown = append(unknown, fmt.Sprintf("%s on %s: %s", cc.Class, cc.Pool, cc.Unknown))
		}
	}
	notes(b, unknown)

	b.WriteString("\n### Tenants\n\nEach tenant's nominal quota at full use (GPUs, or CPUs for a tenant without GPU quota), priced per unit a node advertises, from the cheapest to the dearest pool its classes land on.\n\n")
	b.WriteString("| tenant | quota | cheapest pool | per unit | total | dearest pool | per unit | total |\n|---|---|---|---|---|---|---|---|\n")
	unknown = unknown[:0]
	for _, t := range c.Tenants {
		quota := "none"
		if t.Resource != "" {
			quota = strconv.FormatFloat(t.Quota, 'f', -1, 64) + " " + t.Resource
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", t.Tenant, quota, tenantPrice(t.Low), tenantPrice(t.High))
		if t.Unknown != "" {
			unknown = append(unknown, t.Tenant+": "+t.Unknown)
		}
	}
	notes(b, unknown)

	b.WriteString("\n### Stranded GPUs\n\nGPUs (or their shared replicas or MIG slices) on each node that no packing of the classes landing on the pool can use, each class at most as many pods as fit a node.\n\n")
	b.WriteString("| pool | instance type | resource | per node | usable | stranded per node | nodes at max size | stranded at max size | classes |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range c.Stranded {
		classes := strings.Join(s.Classes, ", ")
		if classes == "" {
			classes = "none"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %d | %d | %d | %d | %d | %s |\n", s.Pool, s.Type, s.Resource, s.PerNode, s.Usable, s.Stranded, s.Nodes, s.Stranded*s.Nodes, classes)
	}
	if len(c.Stranded) == 0 {
		b.WriteString("\nNo pool has GPUs.\n")
	}
	reservedMarkdown(b, c)
	poolsMarkdown(b, c)
}

// poolsMarkdown is what the fleet costs with every pool at max size.
func poolsMarkdown(b *bytes.Buffer, c *cost.Cost) {
	if c.Fleet == nil {
		return
	}
	b.WriteString("\n### Pools at max size\n\nEvery node of each pool, all of its cheapest instance type and all of its dearest.\n\n")
	b.WriteString("| pool | capacity | nodes | cheapest type | total | dearest type | total |\n|---|---|---|---|---|---|---|\n")
	var unknown []string
	for _, p := range c.Pools {
		capacity := "on-demand"
		if p.Spot {
			capacity = "spot"
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s |\n", p.Pool, capacity, p.Nodes, poolPrice(p.Low), poolPrice(p.High))
		if p.Unknown != "" {
			unknown = append(unknown, p.Pool+": "+p.Unknown)
		}
	}
	if c.Fleet.Low == nil {
		b.WriteString("\nThe fleet at max size: unknown, since a pool's price is (below).\n")
	} else {
		fmt.Fprintf(b, "\nThe fleet at max size: %s to %s per hour (%s to %s per month of %d hours).\n",
			money(c.Fleet.Low, true), money(c.Fleet.High, true), monthly(c.Fleet.Low), monthly(c.Fleet.High), cost.HoursPerMonth)
	}
	notes(b, unknown)
}

func poolPrice(p *cost.PoolPrice) string {
	if p == nil {
		return "unknown | unknown"
	}
	return fmt.Sprintf("%s (%s) | %s", p.Type, money(p.NodeHourly, false), money(p.Hourly, true))
}

func tenantPrice(p *cost.TenantPrice) string {
	if p == nil {
		return "unknown | unknown | unknown"
	}
	return fmt.Sprintf("%s (%s) | %s | %s", p.Pool, p.Type, money(p.UnitHourly, false), money(p.Hourly, true))
}

// money prints a price: totals to the cent, unit prices as the table
// gives them.
func money(usd *float64, total bool) string {
	switch {
	case usd == nil:
		return "unknown"
	case total:
		return "$" + strconv.FormatFloat(*usd, 'f', 2, 64)
	default:
		return "$" + strconv.FormatFloat(*usd, 'f', -1, 64)
	}
}

// monthly is an hourly figure over a month of cost.HoursPerMonth.
func monthly(hourly *float64) string {
	if hourly == nil {
		return "unknown"
	}
	return cost.Dollars(*hourly * cost.HoursPerMonth)
}

func notes(b *bytes.Buffer, lines []string) {
	if len(lines) == 0 {
		return
	}
	b.WriteString("\nUnknown:\n\n")
	for _, l := range lines {
		b.WriteString("- " + l + "\n")
	}
}
