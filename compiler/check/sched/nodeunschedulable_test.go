package sched

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kube-scheduler's NodeUnschedulable (pkg/scheduler/framework/plugins/
// nodeunschedulable, Filter) refuses a cordoned node unless the pod
// tolerates node.kubernetes.io/unschedulable:NoSchedule.
func TestNodeUnschedulable(t *testing.T) {
	tolerates := []corev1.Toleration{{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	everything := []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	for _, tc := range []struct {
		name        string
		cordoned    bool
		tolerations []corev1.Toleration
		want        string
	}{
		{"schedulable", false, nil, ""},
		{"cordoned", true, nil, ErrReasonUnschedulable},
		{"cordoned, tolerated", true, tolerates, ""},
		{"cordoned, everything tolerated", true, everything, ""},
		{"cordoned, another NoExecute toleration", true, []corev1.Toleration{{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}, ErrReasonUnschedulable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Tolerations: tc.tolerations}}
			node := &corev1.Node{Spec: corev1.NodeSpec{Unschedulable: tc.cordoned}}
			got := ""
			if rs := NodeUnschedulable.Filter(NewPodInfo(pod), node); len(rs) > 0 {
				got = rs[0]
			}
			if got != tc.want {
				t.Errorf("reasons %q, want %q (compared: %s)", got, tc.want, NodeUnschedulable.Explain(NewPodInfo(pod), node))
			}
		})
	}
}
