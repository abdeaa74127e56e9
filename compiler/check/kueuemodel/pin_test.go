package kueuemodel

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// Kueue's unit per workload kind: a Job's PodSet, a StatefulSet's pod
// group, a Deployment's pod.
func TestUnitPods(t *testing.T) {
	for _, tc := range []struct {
		kind string
		gang bool
		want int32
	}{
		{keys.KindJob, true, 6},
		{keys.KindJob, false, 6}, // Kueue admits all parallel pods, gang or not
		{keys.KindStatefulSet, false, 6},
		{keys.KindDeployment, false, 1},
	} {
		if got := UnitPods(&sched.Class{Kind: tc.kind, Gang: tc.gang, Pods: 6}); got != tc.want {
			t.Errorf("%s (gang %v) of 6 pods: unit %d, want %d", tc.kind, tc.gang, got, tc.want)
		}
	}
}

// Pin is pkg/podset Merge of the flavor's nodeLabels: added to the
// nodeSelector, the class left as it was, a conflicting key refused in
// Kueue's words.
func TestPin(t *testing.T) {
	f := kueue.ResourceFlavorSpec{NodeLabels: map[string]string{keys.LabelPool: "a", "zone": "z"}}
	for _, tc := range []struct {
		name     string
		selector map[string]string
		want     map[string]string
		err      string
	}{
		{"no selector", nil, map[string]string{keys.LabelPool: "a", "zone": "z"}, ""},
		{"kept", map[string]string{"team": "x"}, map[string]string{keys.LabelPool: "a", "zone": "z", "team": "x"}, ""},
		{"same value", map[string]string{"zone": "z"}, map[string]string{keys.LabelPool: "a", "zone": "z"}, ""},
		{"conflict", map[string]string{"zone": "y", keys.LabelPool: "b"}, nil,
			"invalid PodSet update: conflict for nodeSelector: conflict for key=gpufleet.dev/pool, value1=b, value2=a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: tc.selector}}
			c := &sched.Class{Name: "c", Kind: keys.KindJob, Pod: pod, Info: sched.NewPodInfo(pod), Pods: 4}
			got, err := Pin(c, f, 3)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Pod.Spec.NodeSelector) != len(tc.want) {
				t.Errorf("nodeSelector %v, want %v", got.Pod.Spec.NodeSelector, tc.want)
			}
			for k, v := range tc.want {
				if got.Pod.Spec.NodeSelector[k] != v {
					t.Errorf("nodeSelector %v, want %v", got.Pod.Spec.NodeSelector, tc.want)
				}
			}
			if got.Pods != 3 || c.Pods != 4 || len(c.Pod.Spec.NodeSelector) != len(tc.selector) {
				t.Errorf("pinned pods %d (want 3); the class changed: pods %d, selector %v", got.Pods, c.Pods, c.Pod.Spec.NodeSelector)
			}
			if got.Info.Pod != got.Pod {
				t.Errorf("the pinned class's PodInfo is not its pod's")
			}
		})
	}
}
