package sched

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
)

func TestTaintToleration(t *testing.T) {
	gpu := corev1.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}
	exec := corev1.Taint{Key: "maint", Value: "yes", Effect: corev1.TaintEffectNoExecute}
	prefer := corev1.Taint{Key: "soft", Value: "x", Effect: corev1.TaintEffectPreferNoSchedule}
	for _, tc := range []struct {
		name   string
		taints []corev1.Taint
		tols   []corev1.Toleration
		fits   bool
	}{
		{"no taints", nil, nil, true},
		{"untolerated NoSchedule", []corev1.Taint{gpu}, nil, false},
		{"untolerated NoExecute", []corev1.Taint{exec}, nil, false},
		{"PreferNoSchedule does not filter", []corev1.Taint{prefer}, nil, true},
		{"Exists on the key", []corev1.Taint{gpu}, []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}, true},
		{"Equal with the right value", []corev1.Taint{gpu}, []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule}}, true},
		{"Equal with the wrong value", []corev1.Taint{gpu}, []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpEqual, Value: "yes", Effect: corev1.TaintEffectNoSchedule}}, false},
		{"empty key with Exists tolerates everything", []corev1.Taint{gpu, exec}, []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, true},
		{"empty effect matches every effect", []corev1.Taint{exec}, []corev1.Toleration{{Key: "maint", Operator: corev1.TolerationOpExists}}, true},
		{"wrong effect", []corev1.Taint{exec}, []corev1.Toleration{{Key: "maint", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}, false},
		{"one of two tolerated", []corev1.Taint{gpu, exec}, []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists}}, false},
	} {
		st := TaintToleration.Run(NewPodInfo(checktest.Pod(corev1.PodSpec{Tolerations: tc.tols})), checktest.Node(nil, tc.taints, ""))
		if st.OK() != tc.fits {
			t.Errorf("%s: fits = %v, want %v (%v)", tc.name, st.OK(), tc.fits, st)
		}
		if !tc.fits && (len(st.Reasons) != 1 || st.Reasons[0] != "node(s) had untolerated taint(s)") {
			t.Errorf("%s: reasons %q", tc.name, st.Reasons)
		}
	}
}
