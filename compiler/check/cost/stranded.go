package cost

import (
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// gpuUnits sums a node's GPU resources: nvidia.com/gpu and MIG slices.
func gpuUnits(rl corev1.ResourceList) int64 {
	var n int64
	for name, q := range rl {
		if sched.IsGPU(name) {
			n += q.Value()
		}
	}
	return n
}

// stranded finds, for each of the pool's GPU instance types and each GPU
// resource its nodes have, the units no packing of the classes landing on
// the pool (landing, in class order) can use.
func stranded(p *sched.Pool, landing []*sched.Class) []Stranded {
	var out []Stranded
	seen := map[string]bool{}
	for i := range p.Nodes {
		n := &p.Nodes[i]
		if seen[n.InstanceType] {
			continue
		}
		seen[n.InstanceType] = true
		var nodes int64
		for j := range p.Nodes {
			if p.Nodes[j].InstanceType == n.InstanceType {
				nodes += p.Weight(j)
			}
		}
		var names []corev1.ResourceName
		for name, q := range n.Status.Capacity {
			if sched.IsGPU(name) && q.Value() > 0 {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		for _, name := range names {
			capacity := n.Status.Capacity[name]
			s := Stranded{Pool: p.Name, Type: n.InstanceType, Resource: string(name), PerNode: capacity.Value(), Nodes: nodes, Classes: []string{}}
			var items []PackItem
			for _, c := range landing {
				want := c.Info.Request[name]
				if want.Value() <= 0 || !passes(c, n) {
					continue
				}
				s.Classes = append(s.Classes, c.Name)
				most := sched.PodsPerNode(c.Info, n.Node)
				if sched.SelfAntiAffinity(c, keys.LabelHostname) {
					most = min(most, 1)
				}
				items = append(items, PackItem{Size: want.Value(), Most: most})
			}
			s.Usable = Pack(s.PerNode, items)
			s.Stranded = s.PerNode - s.Usable
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Type < b.Type || a.Type == b.Type && a.Resource < b.Resource
	})
	return out
}

// passes reports whether the class's pod passes every node filter on n.
func passes(c *sched.Class, n *sched.Node) bool {
	for _, f := range sched.NodeFilters {
		if len(f.Filter(c.Info, n.Node)) > 0 {
			return false
		}
	}
	return true
}

// PackItem is one class on a node: pods of Size units each, at most Most.
type PackItem struct{ Size, Most int64 }

// Pack is the most of capacity units that pods of the items fill together,
// each item at most Most pods: a bounded subset sum.
func Pack(capacity int64, items []PackItem) int64 {
	if capacity <= 0 {
		return 0
	}
	// Items of one size merge; each takes at most capacity/size pods.
	most := map[int64]int64{}
	for _, it := range items {
		if it.Size > 0 && it.Size <= capacity && it.Most > 0 {
			most[it.Size] = min(most[it.Size]+it.Most, capacity/it.Size)
		}
	}
	sizes := make([]int64, 0, len(most))
	for s := range most {
		sizes = append(sizes, s)
	}
	slices.Sort(sizes)
	reach := make([]bool, capacity+1)
	reach[0] = true
	for _, s := range sizes {
		for range most[s] {
			changed := false
			for v := capacity; v >= s; v-- {
				if !reach[v] && reach[v-s] {
					reach[v], changed = true, true
				}
			}
			if reach[capacity] {
				return capacity
			}
			if !changed {
				break
			}
		}
	}
	for v := capacity; v > 0; v-- {
		if reach[v] {
			return v
		}
	}
	return 0
}
