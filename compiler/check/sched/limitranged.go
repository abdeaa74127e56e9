package sched

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// LimitRanged is a copy of pod as its namespace's LimitRanges leave it:
// each container's and init container's missing limits and requests
// filled from the Container items' defaults, then missing requests from
// limits (LimitRanger's admission, and Kueue's AdjustResources).
func LimitRanged(pod *corev1.Pod, limits []corev1.LimitRange) *corev1.Pod {
	// Only the containers' requests and limits change, and each is replaced
	// by a new list (keepFirst), never written in place: the pod and its
	// containers are copied, the rest shared with pod.
	p := *pod
	p.Spec.InitContainers = slices.Clone(pod.Spec.InitContainers)
	p.Spec.Containers = slices.Clone(pod.Spec.Containers)
	for _, lr := range limits {
		for _, item := range lr.Spec.Limits {
			if item.Type != corev1.LimitTypeContainer {
				continue
			}
			for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
				for i := range cs {
					cs[i].Resources.Limits = keepFirst(cs[i].Resources.Limits, item.Default)
					cs[i].Resources.Requests = keepFirst(cs[i].Resources.Requests, item.DefaultRequest)
				}
			}
		}
	}
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range cs {
			cs[i].Resources.Requests = keepFirst(cs[i].Resources.Requests, cs[i].Resources.Limits)
		}
	}
	return &p
}

// keepFirst adds to a what b has and a lacks.
func keepFirst(a, b corev1.ResourceList) corev1.ResourceList {
	if len(b) == 0 {
		return a
	}
	out := a.DeepCopy()
	if out == nil {
		out = corev1.ResourceList{}
	}
	for k, v := range b {
		if _, ok := out[k]; !ok {
			out[k] = v.DeepCopy()
		}
	}
	return out
}
