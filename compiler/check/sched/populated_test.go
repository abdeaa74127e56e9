package sched

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// One pod already runs on node a1 (zone a); the next pod's verdicts.
func TestFilterPopulated(t *testing.T) {
	mk := func(name, zone string) *corev1.Node {
		n := checktest.Node(map[string]string{keys.LabelZone: zone, keys.LabelHostname: name}, nil, "cpu=2,pods=10")
		n.Name = name
		return n
	}
	nodes := []*corev1.Node{mk("a1", "a"), mk("b1", "b")}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"gpufleet.dev/class": "c"}}
	spread := []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: keys.LabelZone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}}
	anti := &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{LabelSelector: sel, TopologyKey: keys.LabelHostname}}}}
	for _, tc := range []struct {
		name string
		spec corev1.PodSpec
		want string // a1's reason; b1 always fits
	}{
		{"resources less what runs", corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=2")}}, "Insufficient cpu"},
		{"room left", corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=1")}}, ""},
		{"zone spread counts the pod running", corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=1")}, TopologySpreadConstraints: spread}, ErrReasonSpread},
		{"anti-affinity with the pod running", corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=1")}, Affinity: anti}, ErrReasonAntiAffinity},
	} {
		running := checktest.Pod(corev1.PodSpec{NodeName: "a1", Containers: []corev1.Container{checktest.Container("cpu=1")}, Affinity: tc.spec.Affinity})
		next := checktest.Pod(tc.spec)
		got := FilterPopulated(next, nodes, []*corev1.Pod{running})
		want := []string(nil)
		if tc.want != "" {
			want = []string{tc.want}
		}
		if len(got["a1"]) != len(want) || (len(want) > 0 && got["a1"][0] != want[0]) || len(got["b1"]) > 0 {
			t.Errorf("%s: got %v, want a1 %v and b1 fitting", tc.name, got, want)
		}
	}
}
