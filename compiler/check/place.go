package check

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// NodeVerdict is every node filter's status for one class on one node.
type NodeVerdict struct {
	InstanceType string            `json:"instanceType"`
	Zone         string            `json:"zone"`
	Fits         bool              `json:"fits"`
	Filters      map[string]Status `json:"filters"`
	// PodsPerNode is how many of the class's pods the node holds at once.
	PodsPerNode int64 `json:"podsPerNode"`
}

// Cell is the verdict for one class on one pool: it can land if any of the
// pool's instance types, in any of its zones, passes every filter.
type Cell struct {
	Class   string   `json:"class"`
	Pool    string   `json:"pool"`
	Fits    bool     `json:"fits"`
	Reasons []string `json:"reasons,omitempty"`
	// Nodes is per instance type and zone, for explain; left out of JSON.
	Nodes []NodeVerdict `json:"-"`
	// Capacity is the most pods of the class the pool holds at full size.
	Capacity int64 `json:"capacity"`
}

// Evaluate runs every node filter for a class on a pool.
func Evaluate(c *Class, p *Pool) Cell {
	cell := Cell{Class: c.Name, Pool: p.Name}
	reasons := map[string]bool{}
	bestPerNode := int64(0)
	for _, n := range p.Nodes {
		v := NodeVerdict{InstanceType: n.InstanceType, Zone: n.Zone, Fits: true, Filters: map[string]Status{}}
		for _, f := range NodeFilters {
			st := f.Filter(c.Pod, n.Node)
			v.Filters[f.Name] = st
			if !st.OK() {
				v.Fits = false
				for _, r := range st.Reasons {
					reasons[r] = true
				}
			}
		}
		if v.Fits {
			v.PodsPerNode = PodsPerNode(c.Pod, n.Node)
			cell.Fits = true
			if v.PodsPerNode > bestPerNode {
				bestPerNode = v.PodsPerNode
			}
		}
		cell.Nodes = append(cell.Nodes, v)
	}
	if cell.Fits {
		// A node group's nodes are any of its types; the checker credits the
		// best fitting one (see README, "The placement checker").
		cell.Capacity = int64(p.MaxNodes) * bestPerNode
	} else {
		for r := range reasons {
			cell.Reasons = append(cell.Reasons, r)
		}
		sort.Strings(cell.Reasons)
	}
	return cell
}

// affinityMatches reports whether any node of the pool passes NodeAffinity:
// PodTopologySpread's default nodeAffinityPolicy (Honor) counts exactly
// those nodes' domains, and its nodeTaintsPolicy (Ignore) counts them even
// where a taint keeps the pod off.
func affinityMatches(c *Class, n *corev1.Node) bool {
	return nodeAffinity(c.Pod, n).OK()
}
