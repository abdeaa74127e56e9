package kueue

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestAdmitterIsAdmits holds Admitter's compiled affinities to Admits: pods
// with a nodeSelector and affinity terms on several keys, against flavors
// that have every subset of those keys, with values that match and values
// that do not, asked in an order where an affinity kept under a wrong key
// (one that ignored the selector's keys, or the affinity's) would answer
// for a flavor that differs.
func TestAdmitterIsAdmits(t *testing.T) {
	in := func(key string, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}
	}
	affinity := func(terms ...[]corev1.NodeSelectorRequirement) *corev1.Affinity {
		var ts []corev1.NodeSelectorTerm
		for _, t := range terms {
			ts = append(ts, corev1.NodeSelectorTerm{MatchExpressions: t})
		}
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: ts}}}
	}
	pods := []*corev1.Pod{
		{},
		{Spec: corev1.PodSpec{NodeSelector: map[string]string{"a": "1"}}},
		{Spec: corev1.PodSpec{Affinity: affinity([]corev1.NodeSelectorRequirement{in("b", "1")})}},
		{Spec: corev1.PodSpec{NodeSelector: map[string]string{"a": "1"}, Affinity: affinity(
			[]corev1.NodeSelectorRequirement{in("b", "1"), in("c", "1")},
			[]corev1.NodeSelectorRequirement{in("c", "2")})}},
		{Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"c": "2"},
			Tolerations:  []corev1.Toleration{{Key: "t", Operator: corev1.TolerationOpExists}},
			Affinity:     affinity([]corev1.NodeSelectorRequirement{{Key: "a", Operator: corev1.NodeSelectorOpDoesNotExist}})}},
	}
	var flavors []ResourceFlavorSpec
	for mask := range 1 << 3 {
		for _, value := range []string{"1", "2"} {
			labels := map[string]string{"other": "x"}
			for i, k := range []string{"a", "b", "c"} {
				if mask&(1<<i) != 0 {
					labels[k] = value
				}
			}
			flavors = append(flavors, ResourceFlavorSpec{NodeLabels: labels})
		}
	}
	flavors = append(flavors, ResourceFlavorSpec{NodeLabels: map[string]string{"a": "1"},
		NodeTaints: []corev1.Taint{{Key: "t", Effect: corev1.TaintEffectNoSchedule}}})
	outcomes := map[bool]int{}
	for i, pod := range pods {
		// Forwards, then backwards: each flavor is asked both before and
		// after the others that share its compiled affinity.
		admits := Admitter(pod)
		for pass := range 2 {
			for k := range flavors {
				if pass == 1 {
					k = len(flavors) - 1 - k
				}
				name := fmt.Sprintf("f%d", k)
				ok, reason := admits(name, flavors[k])
				wantOK, wantReason := Admits(name, flavors[k], pod)
				if ok != wantOK || reason != wantReason {
					t.Errorf("pod %d, flavor %v: Admitter says %v %q, Admits %v %q", i, flavors[k].NodeLabels, ok, reason, wantOK, wantReason)
				}
				outcomes[wantOK]++
			}
		}
	}
	if outcomes[true] == 0 || outcomes[false] == 0 {
		t.Fatalf("every flavor answered the same: %v", outcomes)
	}
}
