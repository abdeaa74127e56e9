package check

import (
	"slices"

	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// preempts are the tenant's other queued classes whose admitted workloads
// Kueue may preempt, within the ClusterQueue, to admit one of class i:
// where the queue's withinClusterQueue policy lets a workload of its
// priority preempt one of theirs (v0.19.2 pkg/scheduler/preemption/common
// SatisfiesPreemptionPolicy: LowerPriority a lower one; with
// LowerOrNewerEqualPriority an equal one too, if newer; Never none), and
// they may hold a flavor it needs (Kueue considers only workloads using
// the flavors and resources the preemptor lacks). Priorities are the
// classes' WorkloadPriorityClasses.
func (a *Admission) preempts(i int) []string {
	var policy string
	if p := a.CQ.Spec.Preemption; p != nil {
		policy = p.WithinClusterQueue
	}
	if policy == "" || policy == kueue.PreemptionNever {
		return nil
	}
	me := &a.Classes[i]
	mine := a.Model.Priorities[me.Class.PriorityClass]
	var out []string
	for k := range a.Classes {
		them := &a.Classes[k]
		if k == i || slices.Contains(out, them.Class.Name) {
			continue
		}
		theirs := a.Model.Priorities[them.Class.PriorityClass]
		allowed := theirs < mine || policy == kueue.PreemptionLowerOrNewerEqualPriority && theirs == mine
		if allowed && slices.ContainsFunc(me.Candidates, func(f string) bool { return slices.Contains(them.Candidates, f) }) {
			out = append(out, them.Class.Name)
		}
	}
	slices.Sort(out)
	return out
}

// Preempts are the tenant's queued classes Kueue may preempt to admit one
// of class i (preempts), for the checks that read them.
func (a *Admission) Preempts(i int) []string { return a.preempts(i) }
