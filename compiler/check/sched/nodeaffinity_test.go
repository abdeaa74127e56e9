package sched

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
)

func TestNodeAffinity(t *testing.T) {
	n := checktest.Node(map[string]string{"gpu": "H100", "mem": "80", "pool": "a"}, nil, "")
	for _, tc := range []struct {
		name string
		spec corev1.PodSpec
		fits bool
	}{
		{"no constraints", corev1.PodSpec{}, true},
		{"nodeSelector match", corev1.PodSpec{NodeSelector: map[string]string{"pool": "a"}}, true},
		{"nodeSelector mismatch", corev1.PodSpec{NodeSelector: map[string]string{"pool": "b"}}, false},
		{"In", corev1.PodSpec{Affinity: checktest.Required([]corev1.NodeSelectorRequirement{checktest.Match("gpu", corev1.NodeSelectorOpIn, "A100", "H100")})}, true},
		{"NotIn", corev1.PodSpec{Affinity: checktest.Required([]corev1.NodeSelectorRequirement{checktest.Match("gpu", corev1.NodeSelectorOpNotIn, "H100")})}, false},
		{"Exists", corev1.PodSpec{Affinity: checktest.Required([]corev1.NodeSelectorRequirement{checktest.Match("gpu", corev1.NodeSelectorOpExists)})}, true},
		{"DoesNotExist", corev1.PodSpec{Affinity: checktest.Required([]corev1.NodeSelectorRequirement{checktest.Match("gpu", corev1.NodeSelectorOpDoesNotExist)})}, false},
		{"Gt is an integer comparison", corev1.PodSpec{Affinity: checktest.Required([]corev1.NodeSelectorRequirement{checktest.Match("mem", corev1.NodeSelectorOpGt, "79")})}, true},
		{"Gt fails at equal", corev1.PodSpec{Affinity: checktest.Required([]corev1.NodeSelectorRequirement{checktest.Match("mem", corev1.NodeSelectorOpGt, "80")})}, false},
		{"Lt", corev1.PodSpec{Affinity: checktest.Required([]corev1.NodeSelectorRequirement{checktest.Match("mem", corev1.NodeSelectorOpLt, "100")})}, true},
		{"Gt on a missing label", corev1.PodSpec{Affinity: checktest.Required([]corev1.NodeSelectorRequirement{checktest.Match("absent", corev1.NodeSelectorOpGt, "1")})}, false},
		{"expressions are ANDed", corev1.PodSpec{Affinity: checktest.Required([]corev1.NodeSelectorRequirement{checktest.Match("gpu", corev1.NodeSelectorOpIn, "H100"), checktest.Match("pool", corev1.NodeSelectorOpIn, "b")})}, false},
		{"terms are ORed", corev1.PodSpec{Affinity: checktest.Required(
			[]corev1.NodeSelectorRequirement{checktest.Match("pool", corev1.NodeSelectorOpIn, "b")},
			[]corev1.NodeSelectorRequirement{checktest.Match("gpu", corev1.NodeSelectorOpIn, "H100")})}, true},
		{"nodeSelector AND affinity", corev1.PodSpec{NodeSelector: map[string]string{"pool": "b"},
			Affinity: checktest.Required([]corev1.NodeSelectorRequirement{checktest.Match("gpu", corev1.NodeSelectorOpIn, "H100")})}, false},
	} {
		st := NodeAffinity.Run(NewPodInfo(checktest.Pod(tc.spec)), n)
		if st.OK() != tc.fits {
			t.Errorf("%s: fits = %v, want %v (%v)", tc.name, st.OK(), tc.fits, st)
		}
		if !tc.fits && (len(st.Reasons) != 1 || st.Reasons[0] != "node(s) didn't match Pod's node affinity/selector") {
			t.Errorf("%s: reasons %q", tc.name, st.Reasons)
		}
	}
}
