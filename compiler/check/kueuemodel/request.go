package kueuemodel

import (
	corev1 "k8s.io/api/core/v1"

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
