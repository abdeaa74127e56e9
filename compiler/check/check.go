package check

import (
	"sort"

	"github.com/gpufleet/gpufleet/compiler/internal/par"
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
	// Version is the cluster's Kubernetes minor version.
	Version string
}

// Namespaces maps each class to the namespaces its tenants run it in.
func (in Intent) Namespaces() map[string][]string {
	out := map[string][]string{}
	for _, tn := range in.Tenants {
		for _, c := range tn.Classes {
			out[c] = append(out[c], tn.Namespaces...)
		}
	}
	return out
}

type TenantIntent struct {
	Name    string
	Classes []string
	// Namespaces are where the tenant runs its classes, whose LimitRanges
	// fill in what a container does not request.
	Namespaces []string
	// Hard is the tenant's ResourceQuota (nominal plus borrowing) and
	// Nominal its nominal quota alone, by resource name (nvidia.com/gpu,
	// cpu, memory, pods).
	Hard, Nominal map[string]int64 // milli-units
	// PriorityHard are the PriorityClass-scoped quotas by priority: each
	// namespace's pods of that priority must fit them too.
	PriorityHard map[string]map[string]int64
}

type PriorityIntent struct {
	Name     string // the PriorityClass
	Value    int32
	Preempts bool
	Batch    bool // a Job class
}

// Report is everything the checker proves about a fleet.
type Report struct {
	Pools   []string `json:"pools"`
	Classes []string `json:"classes"`
	// Rows are the classes' verdicts on the pools, in class order; the
	// report package writes them as cells.
	Rows     []Row     `json:"-"`
	Findings []Finding `json:"findings"`
	Capacity []Commit  `json:"capacity"`
	// Cost prices the classes and tenants and finds stranded GPUs (Costs);
	// nil until priced.
	Cost *Cost `json:"cost,omitempty"`

	// classAt and poolAt index Classes and Pools, for Cell.
	classAt, poolAt map[string]int
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

// indexCells builds the name indexes Row and Cell read, if the report
// changed since. RunCluster builds them up front; anything that reads
// cells on several CPUs calls it first, so that they then only read.
func (r *Report) indexCells() {
	if r.classAt == nil || len(r.classAt) != len(r.Classes) || len(r.poolAt) != len(r.Pools) {
		r.indexNames()
	}
}

// Row is a class's row, or nil.
func (r *Report) Row(class string) *Row {
	r.indexCells()
	if i, ok := r.classAt[class]; ok && i < len(r.Rows) {
		return &r.Rows[i]
	}
	return nil
}

func (r *Report) indexNames() { r.classAt, r.poolAt = index(r.Classes), index(r.Pools) }

// Cell returns the verdict for a class on a pool, or nil: the evaluated
// cell itself, or for a pool ruled out, one made anew. Queue derivation
// asks whether every tenant's classes fit every pool, which Fits answers
// without making a cell.
func (r *Report) Cell(class, pool string) *Cell {
	w, j := r.locate(class, pool)
	if j < 0 {
		return nil
	}
	if c := w.Evaluation(j); c != nil {
		return c
	}
	c := w.Cell(j)
	return &c
}

// Fits reports whether a class lands on a pool.
func (r *Report) Fits(class, pool string) bool {
	w, j := r.locate(class, pool)
	return j >= 0 && w.Fits(j)
}

// LandsOn names the pools the class lands on, in pool order: its
// evaluated cells that fit, since a ruled-out pool never does.
func (r *Report) LandsOn(class string) []string {
	w := r.Row(class)
	if w == nil {
		return nil
	}
	var out []string
	for k := range w.Evaluated {
		if w.Evaluated[k].Fits {
			out = append(out, w.Evaluated[k].Pool)
		}
	}
	return out
}

func (r *Report) locate(class, pool string) (*Row, int) {
	w := r.Row(class)
	j, ok := r.poolAt[pool]
	if w == nil || !ok || j >= w.Len() {
		return nil, -1
	}
	return w, j
}

// AllCells makes every class × pool cell, class by class in pool order: for
// tests and small fleets (nil for a report without rows).
func (r *Report) AllCells() []Cell {
	if r.Rows == nil {
		return nil
	}
	n := 0
	for i := range r.Rows {
		n += r.Rows[i].Len()
	}
	out := make([]Cell, 0, n)
	for i := range r.Rows {
		for j := range r.Rows[i].Len() {
			out = append(out, r.Rows[i].Cell(j))
		}
	}
	return out
}

// RunCluster checks a cluster, FromTree's at max size or FromLive's: the
// registry's StageRow checks on each class's row as it is made, then its
// StageCluster checks.
func RunCluster(cl *Cluster, in Intent) *Report {
	r := &Report{Pools: []string{}, Classes: []string{}, Findings: []Finding{}}
	for _, p := range cl.Pools {
		r.Pools = append(r.Pools, p.Name)
	}
	// Classes are independent, and a big fleet has millions of class ×
	// pool pairs: each worker makes its classes' rows, and the findings
	// are gathered in class order, so the report does not depend on
	// scheduling. The index rules out wholesale the pools no node of
	// which a class's selectors match (index.go); only the rest are
	// evaluated node by node.
	r.Rows = make([]Row, len(cl.Classes))
	found := make([][]Finding, len(cl.Classes))
	ix := newPoolIndex(cl.Pools)
	onRow := at(StageRow)
	parallel(len(cl.Classes), func(i int, w *worker) {
		c := &cl.Classes[i]
		r.Rows[i] = ix.row(c, cl.Pools, r.Pools, w)
		for _, run := range onRow {
			found[i] = append(found[i], run.row(c, &r.Rows[i], cl.Pools)...)
		}
	})
	for i := range cl.Classes {
		r.Classes = append(r.Classes, cl.Classes[i].Name)
		r.Findings = append(r.Findings, found[i]...)
	}
	r.indexNames()
	for _, run := range at(StageCluster) {
		r.Findings = append(r.Findings, run.cluster(cl, r.Rows, in)...)
	}
	r.Capacity = Commits(cl, in)
	r.Sort()
	return r
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

func index(names []string) map[string]int {
	m := make(map[string]int, len(names))
	for i, n := range names {
		m[n] = i
	}
	return m
}

// parallel runs f for 0..n-1 on every CPU, each goroutine with a worker
// of its own.
func parallel(n int, f func(i int, w *worker)) {
	par.EachWith(n, func() *worker { return &worker{} }, f)
}

// forEach runs f for 0..n-1 on every CPU and returns the error of the
// lowest i that failed, so that what is reported does not depend on
// scheduling. Reading a big fleet's YAML back is the checker's costliest
// step, and the documents are independent.
func forEach(n int, f func(i int) error) error {
	errs := make([]error, n)
	par.Each(n, func(i int) { errs[i] = f(i) })
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
