package queueing

import (
	"fmt"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
)

const IDKueueResourceQuota check.ID = "KueueResourceQuota"

// Kueue does not read ResourceQuotas: it admits a Job against its
// ClusterQueue alone, and the API server's quota admission then refuses
// the pods that do not fit the namespace's quota ("exceeded quota"), while
// the admitted Workload holds the queue's quota and nothing runs. So in
// every namespace of a tenant, each unscoped ResourceQuota must allow all
// that the tenant's ClusterQueue could admit.
const reasonQuotaBelowKueue = "ClusterQueue %s may admit up to %s (nominal quota plus what it may borrow, over all its flavors), but ResourceQuota %s in namespace %s allows %s: the pods of Jobs Kueue admits beyond it fail to be created (exceeded quota: %s) while their Workloads hold the queue's quota"

// KueueResourceQuota checks a tenant's namespaces' unscoped
// ResourceQuotas against what its ClusterQueue may admit: one below it is
// an error, reported once per tenant, since its namespaces' quotas are
// usually the same.
func KueueResourceQuota(a *check.Admission) []check.Finding {
	var short []string // a reason per namespace whose quota is short
	for _, b := range belowKueue(a) {
		if unscoped(b.rq) {
			short = append(short, fmt.Sprintf(reasonQuotaBelowKueue, a.Queue.ClusterQueue, b.over[0].most, b.rq.Name, b.ns, b.over[0].hard, b.rq.Name))
		}
	}
	if len(short) == 0 {
		return nil
	}
	more := ""
	if n := len(short) - 1; n > 0 {
		more = fmt.Sprintf(" (and in %d more of its namespaces)", n)
	}
	return []check.Finding{{Severity: check.Error, Check: IDKueueResourceQuota, Tenant: a.Queue.Tenant,
		Message: fmt.Sprintf("tenant %s: %s%s", a.Queue.Tenant, short[0], more)}}
}

// quotaShort is a ResourceQuota in namespace ns that allows less than a
// ClusterQueue may admit, and what it is short of.
type quotaShort struct {
	ns   string
	rq   *corev1.ResourceQuota
	over []quotaGap
}

// belowKueue lists, in namespace order, the ResourceQuotas of the tenant's
// namespaces that allow less than its ClusterQueue may admit; worked out
// once per queue for the checks that read it. A namespace's quotas after
// an unscoped one that is short are not read: its pods fail there first.
func belowKueue(a *check.Admission) []quotaShort {
	return check.Shared(a, belowKey{}, func() []quotaShort { return quotasBelow(a) })
}

// belowKey keys belowKueue's figures in Shared.
type belowKey struct{}

func quotasBelow(a *check.Admission) []quotaShort {
	most := a.Model.MaxUsage(a.Queue.ClusterQueue)
	names := make([]corev1.ResourceName, 0, len(most))
	for res := range most {
		names = append(names, res)
	}
	slices.Sort(names)
	var out []quotaShort
	for _, ns := range a.Queue.Namespaces {
		for i := range a.Model.ResourceQuotas[ns] {
			rq := &a.Model.ResourceQuotas[ns][i]
			if over := quotaBelow(most, names, rq.Spec.Hard); len(over) > 0 {
				out = append(out, quotaShort{ns, rq, over})
				if unscoped(rq) {
					break
				}
			}
		}
	}
	return out
}

func unscoped(rq *corev1.ResourceQuota) bool {
	return rq.Spec.ScopeSelector == nil && len(rq.Spec.Scopes) == 0
}

type quotaGap struct {
	res        corev1.ResourceName
	most, hard string
}

// quotaBelow lists, in resource order (names, most's sorted), each
// resource whose hard limit is below what Kueue may admit, as "<most>
// <resource>" and "<hard>".
func quotaBelow(most map[corev1.ResourceName]int64, names []corev1.ResourceName, hard corev1.ResourceList) []quotaGap {
	var out []quotaGap
	for _, res := range names {
		for _, name := range quotaNames(res) {
			h, ok := hard[name]
			if !ok || kueuemodel.Value(res, h) >= most[res] {
				continue
			}
			m := kueuemodel.Format(res, most[res])
			if most[res] == math.MaxInt64 {
				m = "all its cohort has"
			}
			out = append(out, quotaGap{res: res, most: m + " " + string(res), hard: h.String() + " " + string(name)})
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
