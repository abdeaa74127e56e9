package sched

import (
	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
)

// ErrReasonUnschedulable is kube-scheduler's NodeUnschedulable reason.
const ErrReasonUnschedulable = "node(s) were unschedulable"

// NodeUnschedulable fails a cordoned node (spec.unschedulable) unless the
// pod tolerates node.kubernetes.io/unschedulable:NoSchedule, as
// k8s.io/kubernetes pkg/scheduler/framework/plugins/nodeunschedulable
// Filter does. Only a live node (check --nodes) can be cordoned: the
// nodes a pool launches at max size never are.
var NodeUnschedulable = NodeFilter{Name: "NodeUnschedulable", Filter: nodeUnschedulable, Explain: unschedulableCompared}

var (
	reasonUnschedulable = []string{ErrReasonUnschedulable}
	unschedulableTaint  = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}
)

func nodeUnschedulable(pi *PodInfo, node *corev1.Node) []string {
	// Comparison operators for tolerations are alpha and off by default.
	if node.Spec.Unschedulable && !corev1helpers.TolerationsTolerateTaint(klog.Background(), pi.Pod.Spec.Tolerations, &unschedulableTaint, false) {
		return reasonUnschedulable
	}
	return nil
}

func unschedulableCompared(pi *PodInfo, node *corev1.Node) string {
	switch {
	case !node.Spec.Unschedulable:
		return "" // explain leaves it out
	case nodeUnschedulable(pi, node) == nil:
		return "node is cordoned; the pod tolerates node.kubernetes.io/unschedulable"
	}
	return "node is cordoned (spec.unschedulable)"
}
