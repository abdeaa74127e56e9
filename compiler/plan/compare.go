package plan

import (
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// Compare is the plan from before to after; files are the generated files
// that differ from the committed tree.
func Compare(before, after *State, files []FileChange) *Plan {
	p := &Plan{SchemaVersion: SchemaVersion, Changed: len(files) > 0, before: before, after: after}
	components := componentsChanged(files)
	p.NodeGroups = groupChanges(before.Groups, after.Groups)
	p.Classes = classChanges(before, after, components)
	p.Tenants = tenantChanges(before, after)
	p.Objects = append(priorityClassChanges(before.PriorityClasses, after.PriorityClasses), claimTemplateChanges(before.ClaimTemplates, after.ClaimTemplates)...)
	p.Cost = costChange(before.Report, after.Report)
	p.Findings, p.errors = findingsChange(before.Report.Findings, after.Report.Findings)
	p.Files = dirFiles(files)
	// Empty lists, not null, for programs.
	p.NodeGroups = orEmpty(p.NodeGroups)
	p.Classes = orEmpty(p.Classes)
	p.Tenants = orEmpty(p.Tenants)
	p.Objects = orEmpty(p.Objects)
	p.summarize(len(files))
	p.classify(before, after, components)
	p.work(before, after)
	return p
}

// componentsChanged are the classes whose Component files (all but the
// example) the change rewrites.
func componentsChanged(files []FileChange) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		rest, ok := strings.CutPrefix(f.Path, tree.ClassesDir+"/")
		class, file, nested := strings.Cut(rest, "/")
		if ok && nested && f.Kind == "changed" && path.Base(file) != "example.yaml" && file != "kustomization.yaml" {
			out[class] = true
		}
	}
	return out
}

func (p *Plan) summarize(files int) {
	s := Summary{NodeGroups: len(p.NodeGroups), Classes: len(p.Classes), Tenants: len(p.Tenants), Resolved: len(p.Findings.Resolved), Files: files}
	for _, c := range p.Classes {
		if c.Lost {
			s.ClassesLost++
		}
	}
	for _, f := range p.Findings.New {
		if f.Severity == "error" {
			s.NewErrors++
		} else {
			s.NewWarnings++
		}
	}
	p.Summary = s
}

func groupOf(g nodes.Group) *Group {
	out := &Group{Provisioner: g.Source, Spot: g.Spot, InstanceTypes: g.InstanceTypes, Zones: g.Zones,
		Min: g.Standing, Desired: g.Desired, Max: g.MaxNodes, KarpenterNodes: g.KarpenterNodes,
		NodeGroups: slices.Sorted(slices.Values(g.Names)), Image: g.Image, labels: g.Labels,
		nodeClass: g.NodeClass, expireAfter: g.ExpireAfter, fixed: g.Fixed}
	// A managed group of a Capacity Block is EKS's capacity type
	// CAPACITY_BLOCK, fixed at CreateNodegroup like ON_DEMAND and SPOT.
	for _, r := range g.Reserved {
		out.block = out.block || r.Block && g.Fixed != nil
	}
	for _, t := range g.Taints {
		out.taints = append(out.taints, t.Key+"="+t.Value+":"+string(t.Effect))
	}
	slices.Sort(out.taints)
	return out
}

func groupChanges(before, after []nodes.Group) []GroupChange {
	old := map[string]*Group{}
	for _, g := range before {
		old[g.Pool] = groupOf(g)
	}
	now := map[string]*Group{}
	for _, g := range after {
		now[g.Pool] = groupOf(g)
	}
	var out []GroupChange
	for _, pool := range union(old, now) {
		b, a := old[pool], now[pool]
		switch {
		case b == nil:
			out = append(out, GroupChange{Pool: pool, Change: Added, After: a})
		case a == nil:
			out = append(out, GroupChange{Pool: pool, Change: Removed, Before: b})
		default:
			if f := groupFields(b, a); len(f) > 0 {
				out = append(out, GroupChange{Pool: pool, Change: Changed, Fields: f, Before: b, After: a})
			}
		}
	}
	return out
}

// groupFields names what differs between two groups of a pool.
func groupFields(b, a *Group) []string {
	var f []string
	add := func(name string, differ bool) {
		if differ {
			f = append(f, name)
		}
	}
	add("min", b.Min != a.Min)
	add("desired", b.Desired != a.Desired)
	add("max", b.Max != a.Max)
	add("karpenterNodes", b.KarpenterNodes != a.KarpenterNodes)
	add("instanceTypes", !slices.Equal(b.InstanceTypes, a.InstanceTypes))
	add("capacityType", b.Spot != a.Spot || b.block != a.block)
	add("zones", !slices.Equal(b.Zones, a.Zones))
	add("provisioner", b.Provisioner != a.Provisioner)
	add("nodeGroups", !slices.Equal(b.NodeGroups, a.NodeGroups))
	add("amiFamily", b.Image != a.Image)
	add("labels", !maps.Equal(b.labels, a.labels))
	add("taints", !slices.Equal(b.taints, a.taints))
	add("nodeClass", b.nodeClass != a.nodeClass)
	add("expireAfter", b.expireAfter != a.expireAfter)
	return f
}

// Shrinks reports whether the change takes nodes away: the group goes, or
// its max or min falls.
func (g GroupChange) Shrinks() bool {
	return g.Change == Removed || g.Change == Changed && (g.After.Max < g.Before.Max || g.After.Min < g.Before.Min)
}

// union is the keys of both maps, sorted.
func union[V any](a, b map[string]V) []string {
	seen := make(map[string]bool, len(a)+len(b))
	var out []string
	for _, m := range []map[string]V{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// dirFiles counts the changed files by the tree's top directory ("." for
// the files at its top).
func dirFiles(files []FileChange) []DirFiles {
	at := map[string]*DirFiles{}
	for _, f := range files {
		dir, _, ok := strings.Cut(f.Path, "/")
		if !ok {
			dir = "."
		}
		d := at[dir]
		if d == nil {
			d = &DirFiles{Dir: dir}
			at[dir] = d
		}
		switch f.Kind {
		case "missing":
			d.Added++
		case "removed":
			d.Removed++
		case "blocked":
			d.Blocked++
		default:
			d.Changed++
		}
	}
	out := []DirFiles{}
	for _, dir := range union(at, map[string]*DirFiles{}) {
		out = append(out, *at[dir])
	}
	return out
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
