// Package drift compares a running cluster's nodes with the fleet the tree
// describes: it maps each live node to its pool (nodes.PoolOf) and reports
// where it differs from the nodes the pool launches, as the checker
// synthesises them (readback.FromTree) from the provisioners' node groups and
// the instance catalog.
package drift

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/nodes"
)

// Fleet is what the live nodes are compared with: the node groups the
// provisioners read back from the tree, the cluster the checker built from
// them (its nodes carry the allocatable the catalog predicts), and the
// catalog.
type Fleet struct {
	Groups  []nodes.Group
	Cluster *sched.Cluster
	Catalog catalog.Catalog
}

// Finding is one way one node differs from its pool.
type Finding struct {
	Kind    Kind   `json:"kind"`
	Pool    string `json:"pool,omitempty"`
	Node    string `json:"node"`
	Message string `json:"message"`
	// Pos is the pool's entry in the spec, where the caller knows it.
	Pos diag.Pos `json:"pos,omitzero"`
}

// Pool is one pool's live nodes and how many findings they have.
type Pool struct {
	Name     string   `json:"name"`
	Nodes    []string `json:"nodes"`
	Findings int      `json:"findings"`
}

// Report is the drift of a cluster's nodes from the fleet: every pool of
// the fleet (sorted by name), the nodes of no pool, and the findings
// sorted by pool, node, kind and message.
type Report struct {
	Pools     []Pool    `json:"pools"`
	Unmatched []string  `json:"unmatched"`
	Findings  []Finding `json:"findings"`
}

// Compare maps each live node to its pool and reports how it differs.
func Compare(f Fleet, live []corev1.Node) *Report {
	r := &Report{Pools: []Pool{}, Unmatched: []string{}, Findings: []Finding{}}
	wants := map[string]*want{}
	for _, g := range f.Groups {
		wants[g.Pool] = newWant(g, f.Cluster)
	}
	byPool := map[string][]string{}
	pools := nodes.PoolsOf(f.Groups)
	for i := range live {
		n := &live[i]
		pool, _ := pools.Of(n.Labels)
		if pool == "" {
			r.Unmatched = append(r.Unmatched, n.Name)
			r.Findings = append(r.Findings, Finding{Kind: NoPool, Node: n.Name, Message: noPool(n)})
			continue
		}
		byPool[pool] = append(byPool[pool], n.Name)
		r.Findings = append(r.Findings, wants[pool].compare(n, f.Catalog)...)
	}
	count := map[string]int{}
	for _, fd := range r.Findings {
		count[fd.Pool]++
	}
	for _, g := range f.Groups {
		names := append([]string{}, byPool[g.Pool]...)
		slices.Sort(names)
		r.Pools = append(r.Pools, Pool{Name: g.Pool, Nodes: names, Findings: count[g.Pool]})
	}
	slices.SortFunc(r.Pools, func(a, b Pool) int { return cmp.Compare(a.Name, b.Name) })
	slices.Sort(r.Unmatched)
	r.Sort()
	return r
}

// Sort orders the findings by pool (no pool last), node, kind and message.
func (r *Report) Sort() {
	slices.SortStableFunc(r.Findings, func(a, b Finding) int {
		if (a.Pool == "") != (b.Pool == "") {
			return cmp.Compare(b.Pool, a.Pool) // "" after any name
		}
		return cmp.Or(cmp.Compare(a.Pool, b.Pool), cmp.Compare(a.Node, b.Node),
			cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind)), cmp.Compare(a.Message, b.Message))
	})
}

func kindOrder(k Kind) int {
	return slices.IndexFunc(Kinds, func(d KindInfo) bool { return d.Kind == k })
}

// Nodes counts the live nodes compared.
func (r *Report) Nodes() int {
	n := len(r.Unmatched)
	for _, p := range r.Pools {
		n += len(p.Nodes)
	}
	return n
}
