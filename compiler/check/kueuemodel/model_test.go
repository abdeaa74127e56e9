package kueuemodel

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// The quota arithmetic of Kueue's cache (resource_node.go): the most one
// workload of queue "a" may use, on an empty cluster.
func TestKueuePotential(t *testing.T) {
	for _, tc := range []struct {
		name    string
		queues  []string
		cohorts string
		want    int64
	}{
		{"alone", []string{checktest.ClusterQueue("a", "", `nominalQuota: "8"`)}, "", 8},
		{"a sibling lends all", []string{checktest.ClusterQueue("a", "c", `nominalQuota: "8"`), checktest.ClusterQueue("b", "c", `nominalQuota: "4"`)}, "", 12},
		{"borrowingLimit caps", []string{checktest.ClusterQueue("a", "c", `nominalQuota: "8", borrowingLimit: "2"`), checktest.ClusterQueue("b", "c", `nominalQuota: "4"`)}, "", 10},
		{"lendingLimit 0 lends nothing", []string{checktest.ClusterQueue("a", "c", `nominalQuota: "8"`), checktest.ClusterQueue("b", "c", `nominalQuota: "4", lendingLimit: "0"`)}, "", 8},
		{"partial lending", []string{checktest.ClusterQueue("a", "c", `nominalQuota: "8"`), checktest.ClusterQueue("b", "c", `nominalQuota: "4", lendingLimit: "1"`)}, "", 9},
		{"own lendingLimit keeps the rest guaranteed", []string{checktest.ClusterQueue("a", "c", `nominalQuota: "8", lendingLimit: "3"`), checktest.ClusterQueue("b", "c", `nominalQuota: "4"`)}, "", 12},
		{"up the tree", []string{checktest.ClusterQueue("a", "lab", `nominalQuota: "8"`), checktest.ClusterQueue("b", "org", `nominalQuota: "4"`)},
			"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: lab}\nspec: {parentName: org}\n", 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := tree.Tree{tree.KueueFlavorsPath: []byte(checktest.KueueFlavor), tree.KueueCohortsPath: []byte(tc.cohorts)}
			var qs []byte
			for i, q := range tc.queues {
				if i > 0 {
					qs = append(qs, "---\n"...)
				}
				qs = append(qs, q...)
			}
			tr[tree.KueueQueuesPath] = qs
			m, err := New(tree.Bytes(tr))
			if err != nil {
				t.Fatal(err)
			}
			pod := &corev1.Pod{Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists}}}}
			gpu := corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}
			if a := m.Assign("a", pod, gpu, int32(tc.want)); !a.Admitted() || a.Flavor() != "f" {
				t.Errorf("%d GPUs: %+v, want admitted to f", tc.want, a)
			}
			a := m.Assign("a", pod, gpu, int32(tc.want+1))
			want := "couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor f, previously considered podsets requests (0) + current podset request (" +
				resource.NewQuantity(tc.want+1, resource.DecimalSI).String() + ") > maximum capacity (" + resource.NewQuantity(tc.want, resource.DecimalSI).String() + ")"
			if a.Message != want {
				t.Errorf("%d GPUs:\n got %q\nwant %q", tc.want+1, a.Message, want)
			}
			// Pods of 1 GPU admitted one by one fill the flavor to the
			// same bound; of 3, to its floor.
			if got := m.Room("a", "f", gpu); got != tc.want {
				t.Errorf("Room for 1-GPU pods: %d, want %d", got, tc.want)
			}
			if got := m.Room("a", "f", corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("3")}); got != tc.want/3 {
				t.Errorf("Room for 3-GPU pods: %d, want %d", got, tc.want/3)
			}
		})
	}
}

// A flavor whose taint the pod does not tolerate is refused in Kueue's
// words, the taint printed as Kueue prints it.
func TestKueueTaint(t *testing.T) {
	tr := tree.Tree{tree.KueueFlavorsPath: []byte(checktest.KueueFlavor), tree.KueueQueuesPath: []byte(checktest.ClusterQueue("a", "", `nominalQuota: "8"`))}
	m, err := New(tree.Bytes(tr))
	if err != nil {
		t.Fatal(err)
	}
	a := m.Assign("a", &corev1.Pod{}, corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}, 1)
	if want := "couldn't assign flavors to pod set main: untolerated taint {nvidia.com/gpu true NoSchedule <nil>} in flavor f"; a.Message != want {
		t.Errorf("got %q, want %q", a.Message, want)
	}
}
