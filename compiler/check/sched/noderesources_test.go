package sched

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
)

func TestNodeResourcesFit(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	sidecar := func(req string) corev1.Container {
		c := checktest.Container(req)
		c.Name, c.RestartPolicy = "side", &always
		return c
	}
	initC := func(req string) corev1.Container { c := checktest.Container(req); c.Name = "init"; return c }
	alloc := "cpu=4,memory=16Gi,pods=29,nvidia.com/gpu=1"
	for _, tc := range []struct {
		name    string
		spec    corev1.PodSpec
		alloc   string
		reasons []string
		perNode int64
	}{
		{"fits", corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=1,memory=4Gi,nvidia.com/gpu=1")}}, alloc, nil, 1},
		{"insufficient GPU", corev1.PodSpec{Containers: []corev1.Container{checktest.Container("nvidia.com/gpu=2")}}, alloc, []string{"Insufficient nvidia.com/gpu"}, 0},
		{"GPU on a CPU node", corev1.PodSpec{Containers: []corev1.Container{checktest.Container("nvidia.com/gpu=1")}}, "cpu=4,memory=16Gi,pods=29", []string{"Insufficient nvidia.com/gpu"}, 0},
		{"cpu and memory in that order", corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=5,memory=17Gi")}}, alloc, []string{"Insufficient cpu", "Insufficient memory"}, 0},
		{"init containers count at their peak, not summed", corev1.PodSpec{InitContainers: []corev1.Container{initC("cpu=3")}, Containers: []corev1.Container{checktest.Container("cpu=2")}}, alloc, nil, 1},
		{"an init container above allocatable", corev1.PodSpec{InitContainers: []corev1.Container{initC("cpu=5")}, Containers: []corev1.Container{checktest.Container("cpu=1")}}, alloc, []string{"Insufficient cpu"}, 0},
		{"sidecars add to the main containers", corev1.PodSpec{InitContainers: []corev1.Container{sidecar("cpu=2")}, Containers: []corev1.Container{checktest.Container("cpu=2500m")}}, alloc, []string{"Insufficient cpu"}, 0},
		{"overhead adds", corev1.PodSpec{Overhead: checktest.Resources("cpu=1"), Containers: []corev1.Container{checktest.Container("cpu=3500m")}}, alloc, []string{"Insufficient cpu"}, 0},
		{"maxPods 0", corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=1")}}, "cpu=4,pods=0", []string{"Too many pods"}, 0},
		{"pods per node bounded by maxPods", corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=10m")}}, "cpu=4,pods=29", nil, 29},
		{"pods per node bounded by the scarcest resource", corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=1,memory=5Gi")}}, alloc, nil, 3},
	} {
		p := checktest.Pod(tc.spec)
		n := checktest.Node(nil, nil, tc.alloc)
		st := NodeResourcesFit.Run(NewPodInfo(p), n)
		if diff := cmp.Diff(tc.reasons, st.Reasons); diff != "" {
			t.Errorf("%s: reasons (-want +got):\n%s", tc.name, diff)
		}
		if st.OK() {
			if got := PodsPerNode(NewPodInfo(p), n); got != tc.perNode {
				t.Errorf("%s: PodsPerNode = %d, want %d", tc.name, got, tc.perNode)
			}
		}
	}
}
