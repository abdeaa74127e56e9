package compiler

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/load"
)

// The bounds on a fleet's density. Evaluating a spec is bounded in time
// and memory (load.EvalTimeout, load.EvalMemory), but what a spec derives
// is not: 517 bytes of CUE make 2,000 pools and 2,000 classes that each
// land on every pool, four million cells for the checker to evaluate and
// four million queued placements for Kueue's model, which took a check
// 128 s and 5.7 GB (and at 3,000 × 3,000 ran out of memory). What costs is
// not the class × pool pairs (the benchmark's XL fleet has 4.5 million,
// nearly all ruled out wholesale by the index) but those a class could
// land on, which the checker evaluates node by node, and the flavors
// Kueue pins each tenant's queued classes to. Both are counted before
// they are made, and a fleet past either is refused at the spec, so that
// the whole run stays within the evaluation's bounds. XL has 5,420 cells
// to evaluate and 19,283 pins.
const (
	// MaxEvaluated is the most class × pool pairs the checker evaluates
	// node by node: the pools some node of which a class's selectors
	// could match (sched.Index.Evaluates), summed over the classes.
	MaxEvaluated = 250_000
	// MaxPinned is the most placements of queued classes pinned to a
	// flavor: for each tenant, the pools each of its queued classes lands
	// on, summed.
	MaxPinned = 250_000
)

// boundEvaluated refuses a fleet whose classes could land on more class ×
// pool pairs than MaxEvaluated, before the checker evaluates them, at the
// spec's classes.
func boundEvaluated(cl *sched.Cluster, e load.Entries, limit int) error {
	ix := sched.NewIndex(cl.Pools)
	total, most, at := 0, -1, ""
	for i := range cl.Classes {
		c := &cl.Classes[i]
		n := ix.Evaluates(c)
		total += n
		if n > most {
			most, at = n, c.Name
		}
	}
	if total <= limit {
		return nil
	}
	return diag.List{{Pos: e.Section("classes"), Path: "classes", Msg: fmt.Sprintf(
		"%s classes could land on %s class × pool pairs (class %s on %s of %s pools), more than the %s gpufleet checks within its bounds of 60 s and 4 GiB; split the fleet, or narrow the classes' products, capacity or selectors",
		count(len(cl.Classes)), count(total), at, count(most), count(len(cl.Pools)), count(limit))}}
}

// boundPinned refuses a fleet whose tenants' queued classes land on more
// pools, summed over the tenants, than MaxPinned, before Kueue's model
// pins them, at the spec's tenants.
func boundPinned(rep *check.Report, queues []kueuemodel.Queue, e load.Entries, limit int) error {
	lands := map[string]int{}
	for i := range rep.Rows {
		n := 0
		for _, c := range rep.Rows[i].Evaluated {
			if c.Fits {
				n++
			}
		}
		lands[rep.Classes[i]] = n
	}
	total, most, at := 0, -1, ""
	for _, q := range queues {
		n := 0
		for _, c := range q.Classes {
			n += lands[c]
		}
		total += n
		if n > most {
			most, at = n, q.Tenant
		}
	}
	if total <= limit {
		return nil
	}
	return diag.List{{Pos: e.Section("tenants"), Path: "tenants", Msg: fmt.Sprintf(
		"the tenants' queued classes land on %s pools, summed over the tenants (tenant %s's on %s), more than the %s placements Kueue's model pins within gpufleet's bounds of 60 s and 4 GiB; split the fleet, or give the tenants fewer classes or the classes fewer pools",
		count(total), at, count(most), count(limit))}}
}

// count writes n with thousands separators, as the docs do.
func count(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
