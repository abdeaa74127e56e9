package kueuemodel

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// A workload of several pod sets (an ML kind's roles) takes flavors pod
// set by pod set, each within what the earlier ones left of the quota,
// and stops at the first that fits nowhere, in Kueue's words.
func TestAssignPodSets(t *testing.T) {
	tr := tree.Tree{tree.KueueFlavorsPath: []byte(checktest.KueueFlavor),
		tree.KueueQueuesPath: []byte(checktest.ClusterQueue("a", "", `nominalQuota: "8"`))}
	m, err := New(tree.Bytes(tr))
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists}}}}
	gpus := func(n string) corev1.ResourceList {
		return corev1.ResourceList{"nvidia.com/gpu": resource.MustParse(n)}
	}
	set := func(name, per string, count int32) PodSet {
		return PodSet{Name: name, Admits: m.Admitter(pod), Request: gpus(per), Count: count}
	}
	for _, tc := range []struct {
		name string
		sets []PodSet
		want string // the last assignment's message
		n    int    // assignments
	}{
		{"a master and workers fit", []PodSet{set("master", "2", 1), set("worker", "2", 3)}, "", 2},
		{"the workers find the master's GPUs taken", []PodSet{set("master", "2", 1), set("worker", "2", 4)},
			"couldn't assign flavors to pod set worker: insufficient quota for nvidia.com/gpu in flavor f, previously considered podsets requests (2) + current podset request (8) > maximum capacity (8)", 2},
		{"the first that fails stops it", []PodSet{set("a", "9", 1), set("b", "1", 1)},
			"couldn't assign flavors to pod set a: insufficient quota for nvidia.com/gpu in flavor f, previously considered podsets requests (0) + current podset request (9) > maximum capacity (8)", 1},
		{"a resource the queue lacks", []PodSet{set("a", "1", 1), {Name: "b", Admits: m.Admitter(pod), Request: corev1.ResourceList{"example.com/x": resource.MustParse("1")}, Count: 1}},
			"couldn't assign flavors to pod set b: resource example.com/x unavailable in ClusterQueue", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := m.AssignPodSets("a", tc.sets)
			if len(got) != tc.n || got[len(got)-1].Message != tc.want {
				t.Fatalf("%d assignments, last %q; want %d, %q", len(got), got[len(got)-1].Message, tc.n, tc.want)
			}
			for _, a := range got[:len(got)-1] {
				if !a.Admitted() || a.Flavor() != "f" {
					t.Errorf("earlier pod set: %+v", a)
				}
			}
		})
	}
}
