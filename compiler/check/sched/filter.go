package sched

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// Status is one filter's verdict on one node; no reasons means it passes.
type Status struct {
	Reasons []string `json:"reasons,omitempty"`
	// Compared says what the filter compared, for 'gpufleet explain'.
	Compared string `json:"compared"`
}

// OK reports whether the node passed.
func (s Status) OK() bool { return len(s.Reasons) == 0 }

// PodInfo is what kube-scheduler's PreFilter computes once per pod, so that
// each node costs only the comparison.
type PodInfo struct {
	Pod      *corev1.Pod
	Affinity nodeaffinity.RequiredNodeAffinity
	Request  corev1.ResourceList
	// Claims are the pod's ResourceClaims, nil for none: the readback
	// resolves them from the tree's templates (NewPodInfo cannot).
	Claims *Claims
	// Bridge is the claim kube-scheduler makes for the pod's request of
	// an extended resource a DeviceClass names (bridge.go), nil where no
	// class maps what it requests.
	Bridge *Claims
	// requests are the non-zero requests in the order reasons are given.
	requests []corev1.ResourceName
}

// Like is the PodInfo of pod, a changed copy of the one prev describes:
// its claims carry over.
func Like(pod *corev1.Pod, prev *PodInfo) *PodInfo {
	pi := NewPodInfo(pod)
	if prev != nil {
		pi.Claims, pi.Bridge = prev.Claims, prev.Bridge
	}
	return pi
}

// NewPodInfo precomputes a pod's affinity and effective request.
func NewPodInfo(pod *corev1.Pod) *PodInfo {
	pi := &PodInfo{Pod: pod, Affinity: nodeaffinity.GetRequiredNodeAffinity(pod), Request: PodRequest(pod)}
	for _, name := range ResourceOrder(pi.Request) {
		if q := pi.Request[name]; !q.IsZero() {
			pi.requests = append(pi.requests, name)
		}
	}
	return pi
}

// NodeFilter is one of kube-scheduler's Filter plugins, for one pod on one
// node, named as the scheduler names it. Filter is the hot path; Explain
// says what was compared, only when asked.
type NodeFilter struct {
	Name    string
	Filter  func(pi *PodInfo, node *corev1.Node) []string
	Explain func(pi *PodInfo, node *corev1.Node) string
}

// Run filters and explains.
func (f NodeFilter) Run(pi *PodInfo, node *corev1.Node) Status {
	return Status{Reasons: f.Filter(pi, node), Compared: f.Explain(pi, node)}
}

// NodeFilters run in kube-scheduler's default profile's Filter order. The
// scheduler reports only the first filter that rejects a node, and so do
// the checker's verdicts; explain runs them all.
var NodeFilters = []NodeFilter{NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit}
