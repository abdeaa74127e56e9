package derive

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// Quota resource names. Extended resources are quota'd on requests only.
const (
	QuotaGPU    corev1.ResourceName = "requests." + keys.ResourceGPU
	QuotaCPU    corev1.ResourceName = corev1.ResourceRequestsCPU
	QuotaMemory corev1.ResourceName = corev1.ResourceRequestsMemory
	QuotaPods   corev1.ResourceName = corev1.ResourcePods
)

func deriveTenant(name string, t spec.Tenant, classes map[string]spec.Class) Tenant {
	out := Tenant{Name: name, Spec: t}
	// A ResourceQuota is a hard namespace ceiling. Kueue admits borrowed
	// work above the nominal quota, so the ceiling must include borrowing
	// or the quota admission would reject what Kueue admitted. Borrowing
	// a resource the quota leaves unlimited changes nothing.
	if t.Quota != nil {
		out.Hard = QuotaList(t.Quota)
		for k, v := range QuotaList(t.Borrow) {
			if sum, ok := out.Hard[k]; ok {
				sum.Add(v)
				out.Hard[k] = sum
			}
		}
	}
	for _, cl := range t.Classes {
		if g := classes[cl].GPU; g != nil && g.Count > out.MaxGPUPerPod {
			out.MaxGPUPerPod = g.Count
		}
		if c, ok := classes[cl]; ok && c.Queued() {
			out.Queued = true
		}
	}
	return out
}

// QuotaList is a spec quota as ResourceQuota hard limits.
func QuotaList(q *spec.Quota) corev1.ResourceList {
	rl := corev1.ResourceList{}
	if q == nil {
		return rl
	}
	if q.GPU != nil {
		rl[QuotaGPU] = *resource.NewQuantity(*q.GPU, resource.DecimalSI)
	}
	if q.CPU != "" {
		rl[QuotaCPU] = resource.MustParse(string(q.CPU))
	}
	if q.Memory != "" {
		rl[QuotaMemory] = resource.MustParse(string(q.Memory))
	}
	if q.Pods != nil {
		rl[QuotaPods] = *resource.NewQuantity(*q.Pods, resource.DecimalSI)
	}
	return rl
}
