package kueuemodel

import (
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// Request is what Kueue counts for one pod of a Workload
// (workload.AdjustResources): each container's missing limits and requests
// filled from the namespace's LimitRange defaults, then missing requests
// from limits. A default of "0" GPUs makes a CPU-only pod ask for 0 GPUs,
// which Kueue assigns a flavor too.
func Request(pod *corev1.Pod, limits []corev1.LimitRange) corev1.ResourceList {
	return sched.PodRequest(sched.LimitRanged(pod, limits))
}

// ClassRequest is what Kueue counts for one pod of the class in the
// namespace: Request, and the devices its claims ask (withClaims).
func (m *Model) ClassRequest(c *sched.Class, ns string) corev1.ResourceList {
	return m.withClaims(Request(c.AsWritten(), m.LimitRanges[ns]), c.Info.Claims)
}

// withClaims adds to a pod's request the devices its claims ask, each
// counted as the resource its DeviceClass maps to in Kueue's
// Configuration (pkg/dra, KueueDRAIntegration: a template's ExactCount
// requests, summed per mapped resource). Kueue refuses a workload whose
// claim names an unmapped class; the checker's claims name only mapped ones.
func (m *Model) withClaims(req corev1.ResourceList, claims *sched.Claims) corev1.ResourceList {
	if !claims.Asks() || len(m.DeviceClasses) == 0 {
		return req
	}
	out := req.DeepCopy()
	for _, c := range claims.Claims {
		for _, r := range c.Spec.Devices.Requests {
			if r.Exactly == nil || r.Exactly.AllocationMode != resourcev1.DeviceAllocationModeExactCount {
				continue
			}
			name, ok := m.DeviceClasses[r.Exactly.DeviceClassName]
			if !ok {
				continue
			}
			sum := out[name]
			sum.Add(*resource.NewQuantity(r.Exactly.Count, resource.DecimalSI))
			out[name] = sum
		}
	}
	return out
}
