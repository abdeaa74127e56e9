package sched

import (
	corev1 "k8s.io/api/core/v1"
)

// The DRA extended-resource bridge (DRAExtendedResource, beta and on from
// Kubernetes 1.36): a DeviceClass whose spec.extendedResourceName names a
// resource lets kube-scheduler satisfy a pod's request for it on a node
// that advertises none, by allocating devices of that class through a
// claim it makes for the pod (k8s.io/kubernetes v1.36.5,
// pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go):
// PreFilter finds the class for each extended resource the pod requests
// (preFilterExtendedResources); on a node whose allocatable has none of
// it, NodeResourcesFit leaves it to DRA (noderesources/fit.go,
// shouldDelegateResourceToDRA) and DynamicResources' Filter asks the
// allocator for that many devices of the class, one request per container
// (filterExtendedResources, createRequestsAndMappings), refusing the node
// as for any claim ("cannot allocate all claims"); on a node that
// advertises it, the device plugin's count is used and no device is
// claimed. The mapping is cluster-wide: every node without the resource
// and with matching devices can take the pod; only the pod's node
// affinity keeps it to some.

// ClaimsOn are the claims the pod's Filter allocates on the node: its own
// ResourceClaims, else the bridge's claim where the node advertises none
// of the bridged resource; nil where it allocates nothing.
func (pi *PodInfo) ClaimsOn(n *corev1.Node) *Claims {
	switch {
	case pi.Claims.Asks():
		return pi.Claims
	case pi.Bridge.Asks() && pi.bridged(pi.Bridge.Extended, n):
		return pi.Bridge
	}
	return nil
}

// bridged reports whether NodeResourcesFit leaves the pod's request of
// name to DRA on the node: the bridge maps it, and the node's allocatable
// has none of it.
func (pi *PodInfo) bridged(name corev1.ResourceName, n *corev1.Node) bool {
	if !pi.Bridge.Asks() || name != pi.Bridge.Extended {
		return false
	}
	q := n.Status.Allocatable[name]
	return q.IsZero()
}
