package sched

import (
	"slices"
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
	// Type is the instance type the pool is credited with for this class:
	// the fitting one that holds the most of its pods.
	Type string `json:"type,omitempty"`
	// Zones is the pool's capacity for the class per zone, on Type.
	Zones []ZoneCapacity `json:"-"`
	// Capacity is the most pods of the class the pool holds at full size.
	Capacity int64 `json:"capacity"`
}

// ZoneCapacity is a pool's nodes in one zone and how many of a class's pods
// each holds (0 where it cannot land).
type ZoneCapacity struct {
	Zone        string
	Nodes       int64
	PodsPerNode int64
}

// FilterStatus is one named filter's status.
type FilterStatus struct {
	Name string `json:"name"`
	Status
}

// Evaluate runs every node filter for a class on a pool.
func Evaluate(c *Class, p *Pool) Cell { return evaluate(c, p, false, nil) }

// Worker is one goroutine's reusable space for Index.Row: the zero value
// is ready to use.
type Worker struct {
	verdicts []NodeVerdict
	reasons  []string
	// sets are the reason sets its cells share; clipped, so that an append
	// to one cell's reasons cannot write into another's.
	sets [][]string
}

// intern returns the shared copy of a reason set.
func (w *Worker) intern(rs []string) []string {
	for _, s := range w.sets {
		if slices.Equal(s, rs) {
			return s
		}
	}
	own := slices.Clip(slices.Clone(rs))
	if len(w.sets) < 64 {
		w.sets = append(w.sets, own)
	}
	return own
}

// Explain is Evaluate that also records what each filter compared.
func Explain(c *Class, p *Pool) Cell { return evaluate(c, p, true, nil) }

// evaluate keeps the per-node verdicts in the cell, unless given a
// worker: the checker evaluates every class on every pool, and a big fleet's
// millions of cells would otherwise each hold a slice of them, and of
// reasons that are the same few sets over and over.
func evaluate(c *Class, p *Pool, explain bool, w *Worker) Cell {
	cell := Cell{Class: c.Name, Pool: p.Name}
	var verdicts []NodeVerdict
	var reasons []string
	if w != nil {
		verdicts, reasons = w.verdicts[:0], w.reasons[:0]
	} else {
		verdicts = make([]NodeVerdict, 0, len(p.Nodes))
	}
	for _, n := range p.Nodes {
		v := NodeVerdict{InstanceType: n.InstanceType, Zone: n.Zone}
		for _, f := range NodeFilters {
			rs := f.Filter(c.Info, n.Node)
			if len(v.Reasons) == 0 {
				v.Reasons = rs
			}
			if explain {
				// A filter with nothing to compare on this node (an
				// uncordoned node's NodeUnschedulable) says nothing.
				if cmp := f.Explain(c.Info, n.Node); cmp != "" || len(rs) > 0 {
					v.Filters = append(v.Filters, FilterStatus{Name: f.Name, Status: Status{Reasons: rs, Compared: cmp}})
				}
			} else if len(rs) > 0 {
				break
			}
		}
		if c.Info.ClaimsOn(n.Node).Asks() && (len(v.Reasons) == 0 || explain) {
			st := DynamicResources(c.Info, n)
			if len(v.Reasons) == 0 {
				v.Reasons = st.Reasons
			}
			if explain {
				v.Filters = append(v.Filters, FilterStatus{Name: "DynamicResources", Status: st})
			}
		}
		v.Fits = len(v.Reasons) == 0
		if v.Fits {
			v.PodsPerNode = PodsPerNodeOn(c.Info, n)
			cell.Fits = true
		} else if !cell.Fits {
			for _, r := range v.Reasons {
				if !slices.Contains(reasons, r) {
					reasons = append(reasons, r)
				}
			}
		}
		verdicts = append(verdicts, v)
	}
	if w != nil {
		w.verdicts, w.reasons = verdicts, reasons
	} else {
		cell.Nodes = verdicts
	}
	if len(p.Nodes) == 0 && p.Live {
		reasons = append(reasons, ErrReasonNoNodes)
	} else if len(p.Nodes) == 0 && p.Unpriced != nil {
		reasons = append(reasons, ErrReasonNoOffering)
	}
	if !cell.Fits {
		sort.Strings(reasons)
		if w != nil {
			reasons = w.intern(reasons)
		}
		cell.Reasons = reasons
		return cell
	}
	// A node group's nodes are any of its types; the checker credits the
	// type that holds the most pods (docs/checks.md, "Max size").
	perType := map[string]int64{}
	for _, v := range verdicts {
		perType[v.InstanceType] = max(perType[v.InstanceType], v.PodsPerNode)
	}
	for _, n := range p.Nodes {
		if perType[n.InstanceType] > perType[cell.Type] || cell.Type == "" {
			cell.Type = n.InstanceType
		}
	}
	for j, n := range p.Nodes {
		if !p.credited(cell, j) {
			continue
		}
		zc := ZoneCapacity{Zone: n.Zone, Nodes: p.Weight(j)}
		if v := verdicts[j]; v.Fits {
			zc.PodsPerNode = v.PodsPerNode
		}
		cell.Zones = append(cell.Zones, zc)
		cell.Capacity += zc.Nodes * zc.PodsPerNode
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
