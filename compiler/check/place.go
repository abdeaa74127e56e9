package check

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// NodeVerdict is the node filters' verdict for one class on one node.
type NodeVerdict struct {
	InstanceType string   `json:"instanceType"`
	Zone         string   `json:"zone"`
	Fits         bool     `json:"fits"`
	Reasons      []string `json:"reasons,omitempty"`
	// Filters is each filter's status with what it compared; only
	// Explain fills it.
	Filters []FilterStatus `json:"filters,omitempty"`
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

// FilterStatus is one named filter's status.
type FilterStatus struct {
	Name string `json:"name"`
	Status
}

// Evaluate runs every node filter for a class on a pool.
func Evaluate(c *Class, p *Pool) Cell { return evaluate(c, p, false) }

// Explain is Evaluate that also records what each filter compared.
func Explain(c *Class, p *Pool) Cell { return evaluate(c, p, true) }

func evaluate(c *Class, p *Pool, explain bool) Cell {
	cell := Cell{Class: c.Name, Pool: p.Name, Nodes: make([]NodeVerdict, 0, len(p.Nodes))}
	reasons := map[string]bool{}
	bestPerNode := int64(0)
	for _, n := range p.Nodes {
		v := NodeVerdict{InstanceType: n.InstanceType, Zone: n.Zone}
		for _, f := range NodeFilters {
			rs := f.Filter(c.Info, n.Node)
			if len(v.Reasons) == 0 {
				v.Reasons = rs
			}
			if explain {
				v.Filters = append(v.Filters, FilterStatus{Name: f.Name, Status: Status{Reasons: rs, Compared: f.Explain(c.Info, n.Node)}})
			} else if len(rs) > 0 {
				break
			}
		}
		for _, r := range v.Reasons {
			reasons[r] = true
		}
		v.Fits = len(v.Reasons) == 0
		if v.Fits {
			v.PodsPerNode = PodsPerNode(c.Info, n.Node)
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
	return nodeAffinity(c.Info, n) == nil
}
