package sched

import "slices"

// Row is one class's verdict on every pool. A big fleet has millions of
// class × pool pairs, of which a class could land on a handful: the index
// rules the rest out wholesale (index.go), so a row keeps only the cells
// evaluated node by node, and for the others the class's verdict on each
// taint group, from which their cells are made when asked for. The
// per-class checks read the evaluated cells and count the rest by reason.
type Row struct {
	// Evaluated are the cells evaluated node by node, in pool order, and
	// At their pools' indexes; read only.
	Evaluated []Cell
	At        []int32

	class string
	pools []string // every pool's name, shared by the report's rows
	// group is each pool's taint group (Index.taints), shared; refused
	// is the class's verdict on a group's ruled-out pools (refusedBy).
	group   []int
	refused []uint8
	// ruledOut counts the ruled-out pools by verdict.
	ruledOut [3]int
}

// A ruled-out pool's nodes all fail NodeAffinity, and all carry its taint
// group's taints: TaintToleration, which runs first, refuses the class if
// it does not tolerate them.
const (
	refusedUnknown uint8 = iota
	refusedAffinity
	refusedTaint
)

// refusedBy is each verdict's reason set, kube-scheduler's words; shared by
// every ruled-out cell, and clipped so that an append cannot write into it.
var refusedBy = [...][]string{
	refusedAffinity: slices.Clip([]string{ErrReasonNodeAffinity}),
	refusedTaint:    slices.Clip([]string{ErrReasonTaint}),
}

// NewRow is the row of a class given every pool's cell, in pool order: a
// row built by hand, as tests build them.
func NewRow(cells []Cell) *Row {
	w := &Row{Evaluated: cells, At: make([]int32, len(cells)), pools: make([]string, len(cells))}
	for j := range cells {
		w.At[j], w.pools[j] = int32(j), cells[j].Pool
	}
	if len(cells) > 0 {
		w.class = cells[0].Class
	}
	return w
}

// Len is how many pools the row covers.
func (w *Row) Len() int { return len(w.pools) }

// find is the index in Evaluated of pool j's cell, if it was evaluated.
func (w *Row) find(j int) (int, bool) {
	return slices.BinarySearch(w.At, int32(j))
}

// Evaluation is pool j's cell if it was evaluated node by node, else nil.
func (w *Row) Evaluation(j int) *Cell {
	if k, ok := w.find(j); ok {
		return &w.Evaluated[k]
	}
	return nil
}

// Cell is the class's cell on pool j: the evaluated one, or for a pool
// ruled out, the one evaluating it would give.
func (w *Row) Cell(j int) Cell {
	if c := w.Evaluation(j); c != nil {
		return *c
	}
	return Cell{Class: w.class, Pool: w.pools[j], Reasons: w.RuledOut(j)}
}

// Fits reports whether the class lands on pool j.
func (w *Row) Fits(j int) bool {
	c := w.Evaluation(j)
	return c != nil && c.Fits
}

// RuledOut is the reasons of a pool that was not evaluated: NodeAffinity's,
// or TaintToleration's if the class does not tolerate the pool's taints.
// For an evaluated pool it is nil.
func (w *Row) RuledOut(j int) []string {
	if _, ok := w.find(j); ok || w.group == nil {
		return nil
	}
	return refusedBy[w.refused[w.group[j]]]
}

// CountRuledOut adds to counts the pools that were not evaluated, by the
// reason that refuses the class on them.
func (w *Row) CountRuledOut(counts map[string]int) {
	for v, n := range w.ruledOut {
		if n > 0 {
			counts[refusedBy[v][0]] += n
		}
	}
}

// each calls f with every pool's cell in pool order, made for the pools
// ruled out, if all; else with the evaluated cells only. A ruled-out pool
// matters only to what counts nodes that fail NodeAffinity (a spread that
// ignores node affinity).
func (w *Row) each(all bool, f func(j int, cell Cell)) {
	if !all {
		for k := range w.Evaluated {
			f(int(w.At[k]), w.Evaluated[k])
		}
		return
	}
	for j := range w.Len() {
		f(j, w.Cell(j))
	}
}

// Evaluates is how many pools Row evaluates class c on node by node: those
// some node of which it could match, and those the index cannot rule out.
// It costs a fraction of Row, so a fleet's size can be bounded before
// its rows are made.
func (x *Index) Evaluates(c *Class) int { return x.evaluates(c).count() }

// evaluates is the set of pools Row evaluates class c on.
func (x *Index) evaluates(c *Class) poolSet {
	could := x.candidates(c.Pod)
	could.or(x.always)
	return could
}

// Row evaluates class c on the pools some node of which it could match,
// and on those the index cannot rule out; the others it refuses by their
// taint group.
func (x *Index) Row(c *Class, pools []Pool, names []string, w *Worker) Row {
	r := Row{class: c.Name, pools: names, group: x.taints, refused: make([]uint8, len(x.taintNode))}
	// Only the pools evaluated are visited, so that a class pinned to one
	// pool's flavor costs that pool, not the fleet's every pool.
	eval := x.evaluates(c)
	n := eval.count()
	r.Evaluated, r.At = make([]Cell, 0, n), make([]int32, 0, n)
	ruledOut := slices.Clone(x.groupSize)
	eval.each(func(j int) {
		r.Evaluated = append(r.Evaluated, evaluate(c, &pools[j], false, w))
		r.At = append(r.At, int32(j))
		if g := x.taints[j]; g >= 0 {
			ruledOut[g]--
		}
	})
	for g, out := range ruledOut {
		if out == 0 {
			continue
		}
		r.refused[g] = refusedAffinity
		if _, untolerated := UntoleratedTaint(c.Pod, x.taintNode[g]); untolerated {
			r.refused[g] = refusedTaint
		}
		r.ruledOut[r.refused[g]] += out
	}
	return r
}
