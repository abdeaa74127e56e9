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
			parts = append(parts, fmt.Sprintf("%s → %s", capacityOf(b), capacityOf(a)))
		case "zones":
			parts = append(parts, fmt.Sprintf("zones %s → %s", zones(b.Zones), zones(a.Zones)))
		case "provisioner":
			parts = append(parts, fmt.Sprintf("provisioned by %s → %s", b.Provisioner, a.Provisioner))
		case "nodeGroups":
			parts = append(parts, fmt.Sprintf("node groups %s → %s", strings.Join(b.NodeGroups, ", "), strings.Join(a.NodeGroups, ", ")))
		case "amiFamily":
			parts = append(parts, fmt.Sprintf("AMI family %s → %s", orNone(b.Image), orNone(a.Image)))
		case "labels":
			parts = append(parts, "node labels change")
		case "taints":
			parts = append(parts, "node taints change")
		case "nodeClass":
			parts = append(parts, fmt.Sprintf("node class %s → %s", orNone(b.nodeClass), orNone(a.nodeClass)))
		case "expireAfter":
			parts = append(parts, fmt.Sprintf("nodes expire after %s → %s", orNone(b.expireAfter), orNone(a.expireAfter)))
		}
	}
	return strings.Join(parts, "; ")
}

// consequences is what a destroy or replace does, and the classes it
// hits: "; EKS cannot …; Karpenter drifts …; classes that land there: …".
func (g GroupChange) consequences() string {
	var parts []string
	parts = append(parts, g.Why...)
	for _, d := range g.Drift {
		nodes := d.Nodes
		if nodes == "all" {
			nodes = "every node of its NodePool"
		}
		parts = append(parts, fmt.Sprintf("Karpenter drifts %s (%s); %s", nodes, d.Reason, pacing))
	}
	if len(g.Classes) > 0 {
		s := "classes that land there: " + strings.Join(g.Classes, ", ")
		if len(g.Stranded) > 0 {
			s += " (" + strings.Join(g.Stranded, ", ") + " can land on no other pool)"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}

// describe is a tenant's own change ("" when only its quotas moved).
func (t TenantChange) describe() string {
	nss := func(names []string) string {
		if len(names) == 1 {
			return "namespace " + names[0]
		}
		return "namespaces " + strings.Join(names, ", ")
	}
	// A namespace's deletion deletes everything in it (the namespace
	// controller empties it before its finalizer is removed).
	gone := func(names []string) string {
		if len(names) == 1 {
			return " deleted on prune, with every workload, volume claim and secret in it"
		}
		return " deleted on prune, with every workload, volume claim and secret in them"
	}
	switch t.Change {
	case Added:
		return "tenant " + t.Tenant + ": added"
	case Removed:
		if len(t.NamespacesRemoved) == 0 {
			return "tenant " + t.Tenant + ": removed"
		}
		return "tenant " + t.Tenant + ": removed: its " + nss(t.NamespacesRemoved) + gone(t.NamespacesRemoved)
	}
	var parts []string
	if len(t.NamespacesRemoved) > 0 {
		parts = append(parts, nss(t.NamespacesRemoved)+gone(t.NamespacesRemoved))
	}
	if len(t.NamespacesAdded) > 0 {
		parts = append(parts, nss(t.NamespacesAdded)+" added")
	}
	if len(parts) == 0 {
		return ""
	}
	return "tenant " + t.Tenant + ": " + strings.Join(parts, "; ")
}

// capacityOf is a group's capacity type, a Capacity Block's managed
// group's its own.
func capacityOf(g *Group) string {
	if g.block {
		return "capacity-block"
	}
	return capacity(g.Spot)
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
	if len(parts) == 0 && c.Restart {
		parts = append(parts, "pod template changes")
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

// CountLine counts the changes by action, as terraform plan does.
func (p *Plan) CountLine() string {
	s := p.Summary
	return fmt.Sprintf("%d to create, %d to update, %d to replace, %d to destroy, %d refused.", s.Create, s.Update, s.Replace, s.Destroy, s.Refused)
}

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
		parts = append(parts, plural(s.Tenants, "tenant", "tenants")) // quotas, namespaces or enforcement
	}
	if f := p.Cost.Fleet; f != nil {
		parts = append(parts, "fleet at max size "+f.Before.money()+" → "+f.After.money())
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
