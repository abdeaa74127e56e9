package check

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func required(terms ...[]corev1.NodeSelectorRequirement) *corev1.Affinity {
	var ts []corev1.NodeSelectorTerm
	for _, t := range terms {
		ts = append(ts, corev1.NodeSelectorTerm{MatchExpressions: t})
	}
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: ts}}}
}

func r(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func TestNodeAffinity(t *testing.T) {
	n := node(map[string]string{"gpu": "H100", "mem": "80", "pool": "a"}, nil, "")
	for _, tc := range []struct {
		name string
		spec corev1.PodSpec
		fits bool
	}{
		{"no constraints", corev1.PodSpec{}, true},
		{"nodeSelector match", corev1.PodSpec{NodeSelector: map[string]string{"pool": "a"}}, true},
		{"nodeSelector mismatch", corev1.PodSpec{NodeSelector: map[string]string{"pool": "b"}}, false},
		{"In", corev1.PodSpec{Affinity: required([]corev1.NodeSelectorRequirement{r("gpu", corev1.NodeSelectorOpIn, "A100", "H100")})}, true},
		{"NotIn", corev1.PodSpec{Affinity: required([]corev1.NodeSelectorRequirement{r("gpu", corev1.NodeSelectorOpNotIn, "H100")})}, false},
		{"Exists", corev1.PodSpec{Affinity: required([]corev1.NodeSelectorRequirement{r("gpu", corev1.NodeSelectorOpExists)})}, true},
		{"DoesNotExist", corev1.PodSpec{Affinity: required([]corev1.NodeSelectorRequirement{r("gpu", corev1.NodeSelectorOpDoesNotExist)})}, false},
		{"Gt is an integer comparison", corev1.PodSpec{Affinity: required([]corev1.NodeSelectorRequirement{r("mem", corev1.NodeSelectorOpGt, "79")})}, true},
		{"Gt fails at equal", corev1.PodSpec{Affinity: required([]corev1.NodeSelectorRequirement{r("mem", corev1.NodeSelectorOpGt, "80")})}, false},
		{"Lt", corev1.PodSpec{Affinity: required([]corev1.NodeSelectorRequirement{r("mem", corev1.NodeSelectorOpLt, "100")})}, true},
		{"Gt on a missing label", corev1.PodSpec{Affinity: required([]corev1.NodeSelectorRequirement{r("absent", corev1.NodeSelectorOpGt, "1")})}, false},
		{"expressions are ANDed", corev1.PodSpec{Affinity: required([]corev1.NodeSelectorRequirement{r("gpu", corev1.NodeSelectorOpIn, "H100"), r("pool", corev1.NodeSelectorOpIn, "b")})}, false},
		{"terms are ORed", corev1.PodSpec{Affinity: required(
			[]corev1.NodeSelectorRequirement{r("pool", corev1.NodeSelectorOpIn, "b")},
			[]corev1.NodeSelectorRequirement{r("gpu", corev1.NodeSelectorOpIn, "H100")})}, true},
		{"nodeSelector AND affinity", corev1.PodSpec{NodeSelector: map[string]string{"pool": "b"},
			Affinity: required([]corev1.NodeSelectorRequirement{r("gpu", corev1.NodeSelectorOpIn, "H100")})}, false},
	} {
		st := NodeAffinity.Run(NewPodInfo(pod(tc.spec)), n)
		if st.OK() != tc.fits {
			t.Errorf("%s: fits = %v, want %v (%v)", tc.name, st.OK(), tc.fits, st)
		}
		if !tc.fits && (len(st.Reasons) != 1 || st.Reasons[0] != "node(s) didn't match Pod's node affinity/selector") {
			t.Errorf("%s: reasons %q", tc.name, st.Reasons)
		}
	}
}
