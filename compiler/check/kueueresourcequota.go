package check

import (
	"fmt"
	"math"

	corev1 "k8s.io/api/core/v1"
)

// Kueue does not read ResourceQuotas: it admits a Job against its
// ClusterQueue alone, and the API server's quota admission then refuses
// the pods that do not fit the namespace's quota ("exceeded quota"), while
// the admitted Workload holds the queue's quota and nothing runs. So in
// every namespace of a tenant, each unscoped ResourceQuota must allow all
// that the tenant's ClusterQueue could admit.
const (
	reasonQuotaBelowKueue  = "ClusterQueue %s may admit up to %s (nominal quota plus what it may borrow, over all its flavors), but ResourceQuota %s in namespace %s allows %s: the pods of Jobs Kueue admits beyond it fail to be created (exceeded quota: %s) while their Workloads hold the queue's quota"
	reasonScopedBelowKueue = "ClusterQueue %s may admit up to %s of class %s (priority %s), but ResourceQuota %s in namespace %s allows %s at that priority; Kueue does not see it, so the pods of Jobs it admits beyond it fail to be created"
)

// MaxUsage is, per resource, the most a ClusterQueue's admitted workloads
// can hold at once: the sum over its flavors of what Kueue lets it use of
// each (its potential available, on an otherwise empty cluster).
func (m *KueueModel) MaxUsage(cq string) map[corev1.ResourceName]int64 {
	out := map[corev1.ResourceName]int64{}
	n := m.nodes[cq]
	if n == nil {
		return out
	}
	for fr := range n.quota {
		out[fr.res] = addSat(out[fr.res], max(0, n.potential(fr, 0)))
	}
	return out
}

// kueueResourceQuota checks a tenant's namespaces' ResourceQuotas against
// what its ClusterQueue may admit: an unscoped quota below it is an error
// (KueueResourceQuota); one scoped to the priority of a queued class, a
// warning (KueuePriorityQuota: the tenant may mean to cap that priority,
// but Kueue will not).
func kueueResourceQuota(q QueueIntent, cl *Cluster, m *KueueModel, out *sink) {
	most := m.MaxUsage(q.ClusterQueue)
	var short []string // a reason per namespace whose quota is short
	warned := map[string]bool{}
	for _, ns := range q.Namespaces {
		for _, rq := range m.ResourceQuotas[ns] {
			over := quotaBelow(most, rq.Spec.Hard)
			if len(over) == 0 {
				continue
			}
			if rq.Spec.ScopeSelector == nil && len(rq.Spec.Scopes) == 0 {
				short = append(short, fmt.Sprintf(reasonQuotaBelowKueue, q.ClusterQueue, over[0].most, rq.Name, ns, over[0].hard, rq.Name))
				break
			}
			for _, class := range q.Classes {
				c := cl.Class(class)
				if c == nil || warned[class] || !priorityScoped(&rq, c.Pod.Spec.PriorityClassName) {
					continue
				}
				warned[class] = true
				out.add(Finding{Severity: Warning, Check: IDKueuePriorityQuota, Tenant: q.Tenant, Class: class,
					Message: fmt.Sprintf("tenant %s: "+reasonScopedBelowKueue, q.Tenant, q.ClusterQueue, over[0].most, class, c.Pod.Spec.PriorityClassName, rq.Name, ns, over[0].hard)})
			}
		}
	}
	// One error per tenant: its namespaces' quotas are usually the same.
	if len(short) > 0 {
		more := ""
		if n := len(short) - 1; n > 0 {
			more = fmt.Sprintf(" (and in %d more of its namespaces)", n)
		}
		out.add(Finding{Severity: Error, Check: IDKueueResourceQuota, Tenant: q.Tenant,
			Message: fmt.Sprintf("tenant %s: %s%s", q.Tenant, short[0], more)})
	}
}

type quotaGap struct{ most, hard string }

// quotaBelow lists, in resource order, each resource whose hard limit is
// below what Kueue may admit, as "<most> <resource>" and "<hard>".
func quotaBelow(most map[corev1.ResourceName]int64, hard corev1.ResourceList) []quotaGap {
	var out []quotaGap
	for _, res := range sortedKeys(most) {
		for _, name := range quotaNames(res) {
			h, ok := hard[name]
			if !ok || value(res, h) >= most[res] {
				continue
			}
			m := format(res, most[res])
			if most[res] == math.MaxInt64 {
				m = "all its cohort has"
			}
			out = append(out, quotaGap{most: m + " " + string(res), hard: h.String() + " " + string(name)})
		}
	}
	return out
}

// quotaNames are the ResourceQuota names that limit requests of res:
// requests.<res>, and for cpu and memory the bare name too.
func quotaNames(res corev1.ResourceName) []corev1.ResourceName {
	out := []corev1.ResourceName{corev1.ResourceName("requests." + string(res))}
	if res == corev1.ResourceCPU || res == corev1.ResourceMemory {
		out = append(out, res)
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
