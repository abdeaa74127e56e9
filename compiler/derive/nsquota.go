package derive

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// UnqueuedQuotaName is the ResourceQuota, in each namespace of a tenant
// with several, that holds its unqueued classes to their share of the
// tenant's quota.
const UnqueuedQuotaName = "gpufleet-unqueued"

// withNamespaceShares splits, for every tenant with a quota, several
// namespaces and a class Kueue does not queue, the quota over its
// namespaces. Kubernetes has no quota across namespaces: a ResourceQuota
// of the whole quota in each would let unqueued work take it once per
// namespace. Kueue's ClusterQueue already holds queued work in total (its
// namespaceSelector spans them all), and needs each namespace's unscoped
// ResourceQuota to allow all of it, so the split is a second
// ResourceQuota scoped to the unqueued classes' PriorityClasses, which
// validate requires no queued class of the tenant shares.
func withNamespaceShares(d *Fleet) {
	for i := range d.Tenants {
		t := &d.Tenants[i]
		ns := t.Spec.Namespaces
		if t.Spec.Quota == nil || len(ns) < 2 {
			continue
		}
		var unqueued []string
		for _, name := range t.Spec.Classes {
			if c := d.Class(name); c != nil && !c.Spec.Queued() {
				unqueued = append(unqueued, name)
				if !slices.Contains(t.UnqueuedPriorities, c.Spec.Priority) {
					t.UnqueuedPriorities = append(t.UnqueuedPriorities, c.Spec.Priority)
				}
			}
		}
		if len(unqueued) == 0 {
			continue
		}
		slices.Sort(t.UnqueuedPriorities)
		total := QuotaList(t.Spec.Quota)
		withClaimQuota(d, unqueued, total)
		t.Unqueued = map[string]corev1.ResourceList{}
		for i, share := range SplitEven(total, len(ns)) {
			t.Unqueued[ns[i]] = share
		}
	}
}

// SplitEven is the rule docs/tree.md states: each resource of total split
// evenly over n namespaces in its smallest unit (a millicore of CPU, a
// byte of memory, one GPU, device or pod), the remainder one unit each to
// the first namespaces, in the spec's order. The shares add up to total.
func SplitEven(total corev1.ResourceList, n int) []corev1.ResourceList {
	out := make([]corev1.ResourceList, n)
	for i := range out {
		out[i] = corev1.ResourceList{}
	}
	for name, q := range total {
		milli := name == QuotaCPU
		v := q.Value()
		if milli {
			v = q.MilliValue()
		}
		base, rem := v/int64(n), v%int64(n)
		for i := range out {
			share := base
			if int64(i) < rem {
				share++
			}
			switch {
			case milli:
				out[i][name] = *resource.NewMilliQuantity(share, resource.DecimalSI)
			default:
				out[i][name] = *resource.NewQuantity(share, q.Format)
			}
		}
	}
	return out
}
