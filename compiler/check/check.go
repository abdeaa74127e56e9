package check

import (
	"sort"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/render"
)

// Intent is what the spec meant, which the rendered objects alone cannot
// say: the deny-side and quota proofs check the objects against it.
type Intent struct {
	// OnDemandOnly lists classes that must never run on spot.
	OnDemandOnly map[string]bool
	// Dedicated maps a dedicated pool to the classes it admits.
	Dedicated map[string][]string
	Tenants   []TenantIntent
	// Priorities maps each class to its priority value and whether it may
	// preempt.
	Priorities map[string]PriorityIntent
}

type TenantIntent struct {
	Name    string
	Classes []string
	// Hard is the tenant's ResourceQuota (nominal plus borrowing) and
	// Nominal its nominal quota alone, by resource name (nvidia.com/gpu,
	// cpu, memory, pods).
	Hard, Nominal map[string]int64 // milli-units
}

type PriorityIntent struct {
	Value    int32
	Preempts bool
	Batch    bool // a Job class
}

// Report is everything the checker proves about a fleet.
type Report struct {
	Pools    []string  `json:"pools"`
	Classes  []string  `json:"classes"`
	Cells    []Cell    `json:"cells"`
	Findings []Finding `json:"findings"`
	Capacity []Commit  `json:"capacity"`

	// cluster is what was checked, for the Kueue checks that follow.
	cluster *Cluster
}

// Errors counts error-level findings.
func (r *Report) Errors() int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == Error {
			n++
		}
	}
	return n
}

// Cell returns the verdict for a class on a pool.
func (r *Report) Cell(class, pool string) *Cell {
	for i := range r.Cells {
		if r.Cells[i].Class == class && r.Cells[i].Pool == pool {
			return &r.Cells[i]
		}
	}
	return nil
}

// Run checks a rendered tree.
func Run(tree render.Tree, cat catalog.Catalog, in Intent) (*Report, error) {
	cl, err := FromTree(tree, cat)
	if err != nil {
		return nil, err
	}
	r := &Report{Pools: []string{}, Classes: []string{}, Findings: []Finding{}, cluster: cl}
	for _, p := range cl.Pools {
		r.Pools = append(r.Pools, p.Name)
	}
	byClass := map[string][]Cell{}
	for i := range cl.Classes {
		c := &cl.Classes[i]
		r.Classes = append(r.Classes, c.Name)
		cells := make([]Cell, len(cl.Pools))
		for j := range cl.Pools {
			cells[j] = Evaluate(c, &cl.Pools[j])
		}
		byClass[c.Name] = cells
		r.Cells = append(r.Cells, cells...)
		r.Findings = append(r.Findings, Lands(c, cells)...)
		r.Findings = append(r.Findings, Gang(c, cells)...)
		r.Findings = append(r.Findings, InterPodAffinity(c, cells)...)
		r.Findings = append(r.Findings, PodTopologySpread(c, cells, cl.Pools)...)
	}
	r.Findings = append(r.Findings, Deny(cl, byClass, in)...)
	quota, commits := Quota(cl, in)
	r.Findings = append(r.Findings, quota...)
	r.Findings = append(r.Findings, PriorityOrder(in)...)
	r.Capacity = commits
	r.Sort()
	return r, nil
}

// Sort orders findings: errors first, then by class and check.
func (r *Report) Sort() {
	sort.SliceStable(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		if a.Severity != b.Severity {
			return a.Severity == Error
		}
		if a.Class != b.Class {
			return a.Class < b.Class
		}
		return a.Check < b.Check
	})
}
