package sched

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
)

// ErrReasonTaint is kube-scheduler's TaintToleration reason.
const ErrReasonTaint = "node(s) had untolerated taint(s)"

// TaintToleration fails a node with a NoSchedule or NoExecute taint the pod
// does not tolerate; PreferNoSchedule only affects scoring.
var TaintToleration = NodeFilter{Name: "TaintToleration", Filter: taintToleration, Explain: taintCompared}

var reasonTaint = []string{ErrReasonTaint}

func hardTaint(t *corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
}

// UntoleratedTaint is the first NoSchedule or NoExecute taint of the node
// the pod does not tolerate, if any.
func UntoleratedTaint(pod *corev1.Pod, node *corev1.Node) (corev1.Taint, bool) {
	// With only hard taints the filter would keep them all, in a copy made
	// on every call: a big fleet makes millions of these calls.
	filter := hardTaint
	if countHard(node.Spec.Taints) == len(node.Spec.Taints) {
		filter = nil
	}
	// Comparison operators for tolerations are alpha and off by default.
	return corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, pod.Spec.Tolerations, filter, false)
}

func taintToleration(pi *PodInfo, node *corev1.Node) []string {
	if _, untolerated := UntoleratedTaint(pi.Pod, node); untolerated {
		return reasonTaint
	}
	return nil
}

func taintCompared(pi *PodInfo, node *corev1.Node) string {
	if taint, untolerated := UntoleratedTaint(pi.Pod, node); untolerated {
		return fmt.Sprintf("taint %s=%s:%s is not tolerated", taint.Key, taint.Value, taint.Effect)
	}
	return fmt.Sprintf("all %d NoSchedule/NoExecute taint(s) tolerated", countHard(node.Spec.Taints))
}

func countHard(ts []corev1.Taint) int {
	n := 0
	for _, t := range ts {
		if t.Effect != corev1.TaintEffectPreferNoSchedule {
			n++
		}
	}
	return n
}
