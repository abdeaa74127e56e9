package queueing

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
)

const IDKueuePriorityQuota check.ID = "KueuePriorityQuota"

// A quota scoped to a PriorityClass limits the pods of that priority in the
// namespace, which Kueue does not read either.
const reasonScopedBelowKueue = "ClusterQueue %s may admit up to %s of class %s (priority %s), but ResourceQuota %s in namespace %s allows %s at that priority; Kueue does not see it, so the pods of workloads it admits beyond it fail to be created"

// KueuePriorityQuota warns of a ResourceQuota scoped to the priority of a
// queued class that is below what the ClusterQueue may admit of a resource
// the class asks for: the tenant may mean to cap that priority, but Kueue
// will not.
func KueuePriorityQuota(a *check.Admission) []check.Finding {
	var out []check.Finding
	warned := map[string]bool{}
	for _, b := range belowKueue(a) {
		for _, qc := range a.Classes {
			c := qc.Class
			if warned[c.Name] || !priorityScoped(b.rq, c.Pod.Spec.PriorityClassName) {
				continue
			}
			// A class that asks for none of what the quota is short of
			// never meets it there (a CPU class and a GPU cap).
			k := slices.IndexFunc(b.over, func(g quotaGap) bool { q := qc.Request[g.res]; return !q.IsZero() })
			if k < 0 {
				continue
			}
			warned[c.Name] = true
			out = append(out, check.Finding{Severity: check.Warning, Check: IDKueuePriorityQuota, Tenant: a.Queue.Tenant, Class: c.Name,
				Message: fmt.Sprintf("tenant %s: "+reasonScopedBelowKueue, a.Queue.Tenant, a.Queue.ClusterQueue, b.over[k].most, c.Name, c.Pod.Spec.PriorityClassName, b.rq.Name, b.ns, b.over[k].hard)})
		}
	}
	return out
}

// priorityScoped reports whether a scoped quota applies to the pods of
// priority pc only through a PriorityClass In selector naming it.
func priorityScoped(rq *corev1.ResourceQuota, pc string) bool {
	if rq.Spec.ScopeSelector == nil || pc == "" {
		return false
	}
	for _, e := range rq.Spec.ScopeSelector.MatchExpressions {
		if e.ScopeName == corev1.ResourceQuotaScopePriorityClass && e.Operator == corev1.ScopeSelectorOpIn {
			for _, v := range e.Values {
				if v == pc {
					return true
				}
			}
		}
	}
	return false
}
