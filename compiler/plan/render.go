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
	var refused, destroyed, replaced, hit, live, restarted, lost, groups, classes, tenants, objects, costs, newErrs, newWarns, resolved, files []string
	// by puts a change in the section of its action; rest is its list
	// when it only creates or updates.
	by := func(action, line string, rest *[]string) {
		line = Symbol(action) + " " + line
		switch action {
		case Refuse:
			refused = append(refused, line)
		case Destroy:
			destroyed = append(destroyed, line)
		case Replace:
			replaced = append(replaced, line)
		default:
			*rest = append(*rest, line)
		}
	}
	for _, g := range p.NodeGroups {
		line := g.line()
		if g.Action == Update && g.Shrinks() {
			by(g.Action, line, &lost)
		} else {
			by(g.Action, line, &groups)
		}
	}
	hit, live = p.workItems(), p.liveItems()
	for _, c := range p.Classes {
		line := c.line()
		switch {
		case c.Restart:
			restarted = append(restarted, Symbol(c.Action)+" "+line)
		case c.Lost && c.Action == Update:
			by(c.Action, line, &lost)
		default:
			by(c.Action, line, &classes)
		}
	}
	for _, t := range p.Tenants {
		if line := t.describe(); line != "" {
			by(t.Action, line, &tenants)
		}
		if t.Change == Removed {
			continue // its quotas go with it (the JSON lists them)
		}
		for _, q := range t.Quotas {
			tenants = append(tenants, Symbol(Update)+" tenant "+t.Tenant+", "+q.describe())
		}
		if t.Enforcement != nil {
			tenants = append(tenants, Symbol(Update)+" tenant "+t.Tenant+", "+t.Enforcement.describe())
		}
	}
	for _, o := range p.Objects {
		by(o.Action, o.line(), &objects)
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
	for _, r := range p.Cost.Reservations {
		costs = append(costs, r.describe())
	}
	for _, f := range p.Findings.Resolved {
		resolved = append(resolved, finding(f))
	}
	for _, d := range p.Files {
		files = append(files, d.describe())
	}
	return []section{
		{title: "Refused by the API server", items: refused},
		{title: "Destroyed", items: destroyed},
		{title: "Replaced", items: replaced},
		{title: "Work hit by the replaced and destroyed pools", items: hit},
		{title: "Live nodes, pods and quotas hit", items: live},
		{title: "Workloads restarted", items: restarted},
		{title: "Capacity lost", items: lost},
		{title: "New errors", items: newErrs},
		{title: "Cost, USD", items: costs, note: "Per hour, and per month of 730 hours. Classes from their cheapest pool to their dearest; tenants' nominal quota at full use; the fleet with every pool at max size. A price neither the catalog nor the spec gives is unknown."},
		{title: "Node groups", items: groups},
		{title: "Classes", items: classes},
		{title: "Tenants", items: tenants},
		{title: "Other objects", items: objects},
		{title: "New warnings", items: newWarns},
		{title: "Resolved findings", items: resolved},
		{title: "Generated files", items: files, note: diffHint},
	}
}

func (g GroupChange) line() string {
	return "pool " + g.Pool + "'s node groups: " + g.describe() + g.consequences()
}

func (c ClassChange) line() string {
	if c.Why != "" {
		return "class " + c.Class + ": " + c.describe() + ": " + c.Why
	}
	return "class " + c.Class + ": " + c.describe()
}

func (o ObjectChange) line() string {
	if o.Why != "" {
		return o.Kind + " " + o.Name + ": " + o.Action + ": " + o.Why
	}
	return o.Kind + " " + o.Name + ": " + o.Action
}

// Disruption is a change a reviewer must not miss: refused, destroyed,
// replaced, or restarting workloads. Section and Name are the spec's
// entry it is about ("pools", "classes", "tenants"; "" for an object the
// spec does not name as an entry), Text the plan's line for it.
type Disruption struct {
	Action, Section, Name, Text string
}

// Disruptions are the plan's disruptions, in its order.
func (p *Plan) Disruptions() []Disruption {
	var out []Disruption
	add := func(action, section, name, text string) {
		out = append(out, Disruption{action, section, name, Symbol(action) + " " + text})
	}
	for _, o := range p.Objects {
		if o.Action == Refuse || o.Action == Destroy {
			add(o.Action, "", o.Name, o.line())
		}
	}
	for _, g := range p.NodeGroups {
		if g.Action == Replace || g.Action == Destroy {
			add(g.Action, "pools", g.Pool, g.line())
		}
	}
	for _, c := range p.Classes {
		if c.Action == Destroy || c.Restart {
			add(c.Action, "classes", c.Class, c.line())
		}
	}
	for _, t := range p.Tenants {
		if t.Action == Destroy {
			add(t.Action, "tenants", t.Tenant, t.describe())
		}
	}
	return out
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

// MaxText bounds the text plan, as printed: a committed tree a stranger
// chose may name thousands of pools, and the text goes to a terminal and
// a CI log (GitHub's step log truncates far below it anyway).
const MaxText = 1 << 20

// Text is the plan for a terminal. diffHint says how to see the lines.
// line, if not nil, is applied to every line as the caller will print it
// (the CLI escapes each for the log), so MaxText holds what is printed;
// past it the plan says how many items it left out.
func (p *Plan) Text(diffHint string, line func(string) string) []byte {
	if line == nil {
		line = func(s string) string { return s }
	}
	var b bytes.Buffer
	b.WriteString(line(p.Headline()) + "\n")
	if !p.Changed {
		return b.Bytes()
	}
	b.WriteString(line(p.CountLine()) + "\n")
	left, total := 0, 0
	for _, s := range p.sections(diffHint) {
		total += len(s.items)
	}
	// Room for the last line, however many it counts.
	budget := MaxText - b.Len() - len(line(textCut(total, total))) - 2
	put := func(l string) bool {
		l = line(l) + "\n"
		if left > 0 || len(l) > budget {
			return false
		}
		budget -= len(l)
		b.WriteString(l)
		return true
	}
	for _, s := range p.sections(diffHint) {
		if len(s.items) == 0 {
			continue
		}
		if !put("") || !put(s.title+":") {
			left += len(s.items)
			continue
		}
		for _, it := range s.items {
			if !put("  - " + oneLine(clip(it, MaxTextItem))) {
				left++
			}
		}
		if s.note != "" {
			put("  " + oneLine(clip(s.note, MaxTextItem)))
		}
	}
	if left > 0 {
		b.WriteString("\n" + line(textCut(total-left, total)) + "\n")
	}
	return b.Bytes()
}

// textCut says what a cut text plan left out, and where the whole is.
func textCut(shown, total int) string {
	return fmt.Sprintf("This plan shows %d of its %d items, to stay under %d bytes: 'gpufleet plan --format json' has the whole plan.", shown, total, MaxText)
}

// oneLine keeps a name or message from breaking the layout.
func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }
