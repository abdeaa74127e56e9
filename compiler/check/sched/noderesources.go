package sched

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// FullNodeReasons is NodeResourcesFit's verdict on one more pod for a node
// of the given type already holding as many of the class's pods as it can.
func FullNodeReasons(pi *PodInfo, p *Pool, typ string) []string {
	for _, n := range p.Nodes {
		if n.InstanceType != typ {
			continue
		}
		k := PodsPerNodeOn(pi, n)
		full := n.Node.DeepCopy()
		alloc := full.Status.Allocatable
		for _, name := range pi.requests {
			if pi.bridged(name, n.Node) {
				continue
			}
			have, want := alloc[name], pi.Request[name]
			for range k {
				have.Sub(want)
			}
			alloc[name] = have
		}
		pods := alloc[corev1.ResourcePods]
		pods.Set(pods.Value() - k)
		alloc[corev1.ResourcePods] = pods
		if rs := fitAgainst(pi, n.Node, full); len(rs) > 0 || !pi.ClaimsOn(n.Node).Asks() {
			return rs
		}
		return []string{ErrReasonClaims} // the node's devices went to the k pods
	}
	return nil
}

// ErrReasonTooManyPods is kube-scheduler's reason when maxPods is reached.
const ErrReasonTooManyPods = "Too many pods"

// NodeResourcesFit compares the pod's effective request (containers, init
// containers at their peak, sidecars, overhead) with the node's
// allocatable, as one pod on an empty node.
var NodeResourcesFit = NodeFilter{Name: "NodeResourcesFit", Filter: nodeResourcesFit, Explain: resourcesCompared}

func nodeResourcesFit(pi *PodInfo, node *corev1.Node) []string {
	return fitAgainst(pi, node, node)
}

// fitAgainst is NodeResourcesFit on node with what its pods take off its
// allocatable (left): the extended-resource bridge takes a request to DRA
// by the node's allocatable alone (fit.go, shouldDelegateResourceToDRA).
func fitAgainst(pi *PodInfo, node, left *corev1.Node) []string {
	alloc := left.Status.Allocatable
	var reasons []string
	if p := alloc[corev1.ResourcePods]; p.Value() < 1 {
		reasons = append(reasons, ErrReasonTooManyPods)
	}
	for _, name := range pi.requests {
		if pi.bridged(name, node) {
			continue // DynamicResources allocates it
		}
		want, have := pi.Request[name], alloc[name]
		if want.Cmp(have) > 0 {
			reasons = append(reasons, "Insufficient "+string(name))
		}
	}
	return reasons
}

func resourcesCompared(pi *PodInfo, node *corev1.Node) string {
	if len(pi.requests) == 0 {
		return "pod requests no resources"
	}
	var compared []string
	for _, name := range pi.requests {
		want, have := pi.Request[name], node.Status.Allocatable[name]
		if pi.bridged(name, node) {
			compared = append(compared, fmt.Sprintf("%s %s/%s (left to DRA)", name, want.String(), have.String()))
			continue
		}
		compared = append(compared, fmt.Sprintf("%s %s/%s", name, want.String(), have.String()))
	}
	return "request/allocatable: " + strings.Join(compared, ", ")
}

// PodRequest is the pod's effective request as the scheduler computes it.
func PodRequest(pod *corev1.Pod) corev1.ResourceList {
	return resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
}

// ResourceOrder lists cpu and memory first, then extended resources sorted,
// the order kube-scheduler reports insufficient resources in.
func ResourceOrder(rl corev1.ResourceList) []corev1.ResourceName {
	var rest []string
	for name := range rl {
		if name != corev1.ResourceCPU && name != corev1.ResourceMemory {
			rest = append(rest, string(name))
		}
	}
	sort.Strings(rest)
	out := []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}
	for _, r := range rest {
		out = append(out, corev1.ResourceName(r))
	}
	return out
}

// PodsPerNode is how many such pods an empty node holds at once.
func PodsPerNode(pi *PodInfo, node *corev1.Node) int64 {
	alloc := node.Status.Allocatable
	p := alloc[corev1.ResourcePods]
	n := p.Value()
	for _, name := range pi.requests {
		if pi.bridged(name, node) {
			continue
		}
		want, have := pi.Request[name], alloc[name]
		if k := fits(want, have); k < n {
			n = k
		}
	}
	return n
}

// fits is floor(have/want) in the resource's smallest unit.
func fits(want, have resource.Quantity) int64 {
	w, h := want.MilliValue(), have.MilliValue()
	if w <= 0 {
		return 1 << 62
	}
	return h / w
}
