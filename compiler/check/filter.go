package check

import corev1 "k8s.io/api/core/v1"

// Status is one filter's verdict on one node; no reasons means it passes.
type Status struct {
	Reasons []string `json:"reasons,omitempty"`
	// Compared says what the filter compared, for 'gpufleet explain'.
	Compared string `json:"compared"`
}

// OK reports whether the node passed.
func (s Status) OK() bool { return len(s.Reasons) == 0 }

// NodeFilter is one of kube-scheduler's Filter plugins, for one pod on one
// node, named as the scheduler names it.
type NodeFilter struct {
	Name   string
	Filter func(pod *corev1.Pod, node *corev1.Node) Status
}

// NodeFilters run in kube-scheduler's default profile order.
var NodeFilters = []NodeFilter{NodeAffinity, TaintToleration, NodeResourcesFit}
