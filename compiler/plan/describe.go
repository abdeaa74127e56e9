package plan

import (
	"fmt"
	"strconv"
	"strings"
)

// The words both formats use for each change.

func (g GroupChange) describe() string {
	switch g.Change {
	case Added:
		a := g.After
		return fmt.Sprintf("added: %s, %s, in %s; min %d, desired %d, max %d nodes", strings.Join(a.InstanceTypes, ", "), capacity(a.Spot), zones(a.Zones), a.Min, a.Desired, a.Max)
	case Removed:
		return fmt.Sprintf("removed: it had up to %d nodes of %s", g.Before.Max, strings.Join(g.Before.InstanceTypes, ", "))
	}
	b, a := g.Before, g.After
	var parts []string
	for _, f := range g.Fields {
		switch f {
		case "min":
			parts = append(parts, fmt.Sprintf("min %d → %d", b.Min, a.Min))
		case "desired":
			parts = append(parts, fmt.Sprintf("desired %d → %d", b.Desired, a.Desired))
		case "max":
			parts = append(parts, fmt.Sprintf("max %d → %d nodes", b.Max, a.Max))
		case "karpenterNodes":
			parts = append(parts, fmt.Sprintf("Karpenter's nodes %d → %d", b.KarpenterNodes, a.KarpenterNodes))
		case "instanceTypes":
			parts = append(parts, fmt.Sprintf("instance types %s → %s", strings.Join(b.InstanceTypes, ", "), strings.Join(a.InstanceTypes, ", ")))
		case "capacityType":
			parts = append(parts, fmt.Sprintf("%s → %s", capacity(b.Spot), capacity(a.Spot)))
		case "zones":
			parts = append(parts, fmt.Sprintf("zones %s → %s", zones(b.Zones), zones(a.Zones)))
		case "provisioner":
			parts = append(parts, fmt.Sprintf("provisioned by %s → %s", b.Provisioner, a.Provisioner))
		}
	}
	return strings.Join(parts, "; ")
}

func capacity(spot bool) string {
	if spot {
		return "spot"
	}
	return "on-demand"
}

func zones(z []string) string {
	if len(z) == 0 {
		return "every zone"
	}
	return strings.Join(z, ", ")
}

func (c ClassChange) describe() string {
	var parts []string
	switch c.Change {
	case Added:
		parts = append(parts, "added")
	case Removed:
		return "removed"
	}
	for _, p := range c.Pools {
		switch {
		case p.Before == nil:
			parts = append(parts, fmt.Sprintf("lands on %s (%d pods at max size)", p.Pool, *p.After))
		case p.After == nil:
			parts = append(parts, fmt.Sprintf("no longer lands on %s (had %d pods at max size)", p.Pool, *p.Before))
		default:
			parts = append(parts, fmt.Sprintf("%s: %d → %d pods at max size", p.Pool, *p.Before, *p.After))
		}
	}
	if c.AtOnce != nil {
		s := "pods at once " + count(c.AtOnce.Before) + " → " + count(c.AtOnce.After)
		switch n := c.Pending(); {
		case n > 0:
			s += fmt.Sprintf(" (%d that ran at once now pend)", n)
		case n < 0:
			s += fmt.Sprintf(" (%d that pended now run at once)", -n)
		}
		parts = append(parts, s)
	}
	if c.Scheduler != nil {
		parts = append(parts, fmt.Sprintf("scheduler %s → %s", c.Scheduler.Before, c.Scheduler.After))
	}
	if c.Priority != nil {
		parts = append(parts, fmt.Sprintf("PriorityClass %s → %s", orNone(c.Priority.Before), orNone(c.Priority.After)))
	}
	return strings.Join(parts, "; ")
}

func count(n *int64) string {
	if n == nil {
		return "none"
	}
	return strconv.FormatInt(*n, 10)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func (q QuotaChange) describe() string {
	return fmt.Sprintf("%s: %s %s → %s", q.Scope, q.Resource, orNone(q.Before), orNone(q.After))
}

// money is a price range: "$1.20", "$1.20 to $3.40", "unknown", or "none"
// where there was nothing to price.
func (r *Range) money() string {
	switch {
	case r == nil:
		return "none"
	case r.Low == nil || r.High == nil:
		return "unknown"
	case *r.Low == *r.High:
		return usd(*r.Low)
	}
	return usd(*r.Low) + " to " + usd(*r.High)
}

func usd(f float64) string { return "$" + strconv.FormatFloat(f, 'f', 2, 64) }

func (c RangeChange) describe() string { return c.Before.money() + " → " + c.After.money() }

// Headline is the plan in one line.
func (p *Plan) Headline() string {
	if !p.Changed {
		return "No changes: the committed tree is what the spec compiles to."
	}
	s := p.Summary
	var parts []string
	plural := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.Itoa(n) + " " + many
	}
	if s.NodeGroups > 0 {
		parts = append(parts, plural(s.NodeGroups, "pool's node groups", "pools' node groups"))
	}
	if s.Classes > 0 {
		c := plural(s.Classes, "class", "classes")
		if s.ClassesLost > 0 {
			c += fmt.Sprintf(" (%d losing capacity)", s.ClassesLost)
		}
		parts = append(parts, c)
	}
	if s.Tenants > 0 {
		parts = append(parts, plural(s.Tenants, "tenant's quotas", "tenants' quotas"))
	}
	if p.Cost.Fleet != nil {
		parts = append(parts, "fleet at max size "+p.Cost.Fleet.describe()+" per hour")
	}
	if s.NewErrors > 0 {
		parts = append(parts, plural(s.NewErrors, "new error", "new errors"))
	}
	if s.NewWarnings > 0 {
		parts = append(parts, plural(s.NewWarnings, "new warning", "new warnings"))
	}
	if s.Resolved > 0 {
		parts = append(parts, plural(s.Resolved, "finding resolved", "findings resolved"))
	}
	parts = append(parts, plural(s.Files, "generated file changes", "generated files change"))
	return "Plan: " + strings.Join(parts, ", ") + "."
}
