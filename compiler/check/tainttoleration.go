package check

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
var TaintToleration = NodeFilter{Name: "TaintToleration", Filter: taintToleration}

func taintToleration(pod *corev1.Pod, node *corev1.Node) Status {
	filter := func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}
	// Comparison operators for tolerations are alpha and off by default.
	taint, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, pod.Spec.Tolerations, filter, false)
	if !untolerated {
		return Status{Compared: fmt.Sprintf("all %d NoSchedule/NoExecute taint(s) tolerated", countHard(node.Spec.Taints))}
	}
	return Status{
		Reasons:  []string{ErrReasonTaint},
		Compared: fmt.Sprintf("taint %s=%s:%s is not tolerated", taint.Key, taint.Value, taint.Effect),
	}
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
