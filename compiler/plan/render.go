package plan

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
)

// A section is one part of a plan as people read it, in the order of its
// consequence: capacity lost, new errors and cost first.
type section struct {
	title string
	items []string
	note  string // after the items
}

func (p *Plan) sections(diffHint string) []section {
	var lost, groups, classes, tenants, costs, newErrs, newWarns, resolved, files []string
	for _, g := range p.NodeGroups {
		line := "pool " + g.Pool + "'s node groups: " + g.describe()
		if g.Shrinks() {
			lost = append(lost, line)
		} else {
			groups = append(groups, line)
		}
	}
	for _, c := range p.Classes {
		line := "class " + c.Class + ": " + c.describe()
		if c.Lost {
			lost = append(lost, line)
		} else {
			classes = append(classes, line)
		}
	}
	for _, f := range p.Findings.New {
		if f.Severity == "error" {
			newErrs = append(newErrs, finding(f))
		} else {
			newWarns = append(newWarns, finding(f))
		}
	}
	if p.Cost.Fleet != nil {
		costs = append(costs, "the fleet at max size: "+p.Cost.Fleet.describe())
	}
	for _, c := range p.Cost.Classes {
		costs = append(costs, "class "+c.Name+": "+c.describe())
	}
	for _, t := range p.Cost.Tenants {
		costs = append(costs, "tenant "+t.Name+"'s quota at full use: "+t.describe())
	}
	for _, t := range p.Tenants {
		switch t.Change {
		case Added, Removed:
			tenants = append(tenants, "tenant "+t.Tenant+": "+t.Change)
		}
		for _, q := range t.Quotas {
			tenants = append(tenants, "tenant "+t.Tenant+", "+q.describe())
		}
		if t.Enforcement != nil {
			tenants = append(tenants, "tenant "+t.Tenant+", "+t.Enforcement.describe())
		}
	}
	for _, f := range p.Findings.Resolved {
		resolved = append(resolved, finding(f))
	}
	for _, d := range p.Files {
		files = append(files, d.describe())
	}
	return []section{
		{title: "Capacity lost", items: lost},
		{title: "New errors", items: newErrs},
		{title: "Cost, USD per hour", items: costs, note: "Classes from their cheapest pool to their dearest; tenants' nominal quota at full use; the fleet with every pool at max size. A price neither the catalog nor the spec gives is unknown."},
		{title: "Node groups", items: groups},
		{title: "Classes", items: classes},
		{title: "Tenants' quotas", items: tenants},
		{title: "New warnings", items: newWarns},
		{title: "Resolved findings", items: resolved},
		{title: "Generated files", items: files, note: diffHint},
	}
}

// finding is a finding on one line, with the class, pool and tenant it is
// about where its message does not name them.
func finding(f check.Finding) string {
	var about []string
	for _, s := range [][2]string{{"class", f.Class}, {"pool", f.Pool}, {"tenant", f.Tenant}} {
		if s[1] != "" && !strings.Contains(f.Message, s[1]) {
			about = append(about, s[0]+" "+s[1])
		}
	}
	head := f.Severity + " " + string(f.Check)
	if len(about) > 0 {
		head += " (" + strings.Join(about, ", ") + ")"
	}
	return head + ": " + f.Message
}

func (d DirFiles) describe() string {
	var parts []string
	for _, n := range []struct {
		n    int
		what string
	}{{d.Changed, "changed"}, {d.Added, "added"}, {d.Removed, "no longer generated"}, {d.Blocked, "blocked"}} {
		if n.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n.n, n.what))
		}
	}
	dir := d.Dir + "/"
	if d.Dir == "." {
		dir = "the tree's top"
	}
	return dir + ": " + strings.Join(parts, ", ")
}

// Text is the plan for a terminal. diffHint says how to see the lines.
func (p *Plan) Text(diffHint string) []byte {
	var b bytes.Buffer
	b.WriteString(p.Headline() + "\n")
	if !p.Changed {
		return b.Bytes()
	}
	for _, s := range p.sections(diffHint) {
		if len(s.items) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s:\n", s.title)
		for _, it := range s.items {
			b.WriteString("  - " + oneLine(clip(it, MaxTextItem)) + "\n")
		}
		if s.note != "" {
			b.WriteString("  " + oneLine(clip(s.note, MaxTextItem)) + "\n")
		}
	}
	return b.Bytes()
}

// oneLine keeps a name or message from breaking the layout.
func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }
