package readback

import (
	"fmt"
	"path"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// WithLimitRanges gives each class's pod what LimitRanger's admission adds
// in the namespaces its tenants run it in, before kube-scheduler ever sees
// it: a container or init container naming no CPU or memory gets the
// tenant's default request (the LimitRanges in the tree). A class several
// tenants run is placed with the largest default of each resource among
// them: the scheduler's fit only gets harder as requests grow, so what is
// proved for it holds in each of their namespaces. namespaces maps each
// class to its tenants' namespaces (Intent.Namespaces).
func WithLimitRanges(cl *sched.Cluster, t tree.Typed, namespaces map[string][]string) error {
	byNamespace := map[string][]corev1.LimitRange{}
	for _, p := range t.Paths() {
		if path.Base(p) != tree.LimitRangesFile {
			continue
		}
		var lrs []corev1.LimitRange
		if err := DecodeAll(t, p, &lrs); err != nil {
			return fmt.Errorf("check: %s: %w", p, err)
		}
		for _, lr := range lrs {
			byNamespace[lr.Namespace] = append(byNamespace[lr.Namespace], lr)
		}
	}
	for i := range cl.Classes {
		c := &cl.Classes[i]
		var items []corev1.LimitRangeItem
		for _, ns := range namespaces[c.Name] {
			for _, lr := range byNamespace[ns] {
				items = append(items, lr.Spec.Limits...)
			}
		}
		if len(items) == 0 {
			continue
		}
		c.Written = c.AsWritten()
		c.Pod = sched.LimitRanged(c.Written, []corev1.LimitRange{{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{largestDefaults(items)}}}})
		c.Info = sched.Like(c.Pod, c.Info)
	}
	return nil
}

// largestDefaults is one Container item with, per resource, the largest
// default limit and default request among items'.
func largestDefaults(items []corev1.LimitRangeItem) corev1.LimitRangeItem {
	out := corev1.LimitRangeItem{Type: corev1.LimitTypeContainer}
	for _, it := range items {
		if it.Type != corev1.LimitTypeContainer {
			continue
		}
		out.Default = keepLargest(out.Default, it.Default)
		out.DefaultRequest = keepLargest(out.DefaultRequest, it.DefaultRequest)
	}
	return out
}

func keepLargest(a, b corev1.ResourceList) corev1.ResourceList {
	for k, v := range b {
		if a == nil {
			a = corev1.ResourceList{}
		}
		if have, ok := a[k]; !ok || v.Cmp(have) > 0 {
			a[k] = v.DeepCopy()
		}
	}
	return a
}
