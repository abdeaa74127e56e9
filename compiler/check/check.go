// Package check is what the placement checker's checks share and the
// runner that runs them. A check is a function of its Stage's signature
// (OnRow, OnCluster, OnKueue, OnQueue) in a file named after it, in the
// package of the real component it restates, as kube-scheduler keeps one
// plugin a folder: scheduling (kube-scheduler), queueing (Kueue),
// provisioning (Karpenter, cluster-autoscaler), nodeagents (the kubelet's
// device plugins), resourcequota (the API server's quota admission) and
// disruption (spot interruptions, preemption). compiler/check/registry
// lists them all, each with its severity. RunCluster runs the checks it
// is given on the scheduling model (compiler/check/sched) that
// compiler/check/readback builds from the tree, and Kueue on the Kueue
// model (compiler/check/kueuemodel). Findings give the real component's
// reasons, in its words.
package check

import (
	"iter"
	"sort"

	"github.com/gpufleet/gpufleet/compiler/check/cost"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/internal/par"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// Report is everything the checker proves about a fleet.
type Report struct {
	Pools []string `json:"pools"`
	// PoolInfo is each pool's product, capacity type, instance types and
	// size, in Pools' order (PoolInfos).
	PoolInfo []PoolInfo `json:"poolInfo,omitempty"`
	Classes  []string   `json:"classes"`
	// Rows are the classes' verdicts on the pools, in class order; the
	// report package writes them as cells.
	Rows     []sched.Row `json:"-"`
	Findings []Finding   `json:"findings"`
	Capacity []Commit    `json:"capacity"`
	// Units are how each Job class and each tenant's queued class is
	// admitted and placed: RunCluster's Jobs that are not queued, then
	// Kueue's, in queue order.
	Units []Unit `json:"units,omitempty"`
	// Cost prices the classes and tenants and finds stranded GPUs (Costs);
	// nil until priced.
	Cost *cost.Cost `json:"cost,omitempty"`

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
func (r *Report) Row(class string) *sched.Row {
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
func (r *Report) Cell(class, pool string) *sched.Cell {
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

func (r *Report) locate(class, pool string) (*sched.Row, int) {
	w := r.Row(class)
	j, ok := r.poolAt[pool]
	if w == nil || !ok || j >= w.Len() {
		return nil, -1
	}
	return w, j
}

// AllCells makes every class × pool cell, class by class in pool order: for
// tests and small fleets (nil for a report without rows).
func (r *Report) AllCells() []sched.Cell {
	if r.Rows == nil {
		return nil
	}
	n := 0
	for i := range r.Rows {
		n += r.Rows[i].Len()
	}
	out := make([]sched.Cell, 0, n)
	for i := range r.Rows {
		for j := range r.Rows[i].Len() {
			out = append(out, r.Rows[i].Cell(j))
		}
	}
	return out
}

// RunCluster checks a cluster, readback.FromTree's at max size or
// FromLive's: the StageRow checks of checks (the registry's,
// compiler/check/registry) on each class's row as it is made, then their
// StageCluster checks.
func RunCluster(cl *sched.Cluster, in Intent, checks []Check) *Report {
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
	r.Rows = make([]sched.Row, len(cl.Classes))
	found := make([][]Finding, len(cl.Classes))
	jobs := make([]*Unit, len(cl.Classes))
	ix := sched.NewIndex(cl.Pools)
	onRow := at(checks, StageRow)
	parallel(len(cl.Classes), func(i int, w *sched.Worker) {
		c := &cl.Classes[i]
		r.Rows[i] = ix.Row(c, cl.Pools, r.Pools, w)
		for _, run := range onRow {
			found[i] = append(found[i], run.row(c, &r.Rows[i], cl.Pools)...)
		}
		if c.Kind == keys.KindJob && !c.Queued {
			atOnce := sched.Holds(c, &r.Rows[i], cl.Pools)
			jobs[i] = &Unit{Class: c.Name, Kind: c.Kind, Gang: c.Gang, Pods: c.Pods, AtOnce: atOnce, Waves: waves(c, atOnce)}
		}
	})
	for i := range cl.Classes {
		c := &cl.Classes[i]
		r.Classes = append(r.Classes, c.Name)
		r.Findings = append(r.Findings, found[i]...)
		if jobs[i] != nil {
			r.Units = append(r.Units, *jobs[i])
		}
	}
	r.indexNames()
	for _, run := range at(checks, StageCluster) {
		r.Findings = append(r.Findings, run.cluster(cl, r.Rows, in)...)
	}
	r.Capacity = Commits(cl, in)
	r.PoolInfo = PoolInfos(cl)
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

// FitPools yields the pools of the row's cells that fit, in pool order.
func FitPools(cl *sched.Cluster, w *sched.Row) iter.Seq[*sched.Pool] {
	return func(yield func(*sched.Pool) bool) {
		for k := range w.Evaluated {
			if w.Evaluated[k].Fits && !yield(&cl.Pools[w.At[k]]) {
				return
			}
		}
	}
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
func parallel(n int, f func(i int, w *sched.Worker)) {
	par.EachWith(n, func() *sched.Worker { return &sched.Worker{} }, f)
}
