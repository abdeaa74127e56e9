package scheduling

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
)

// A CPU-only class must not land on a pool of GPU nodes: whole GPUs, MIG
// slices, or GPUs the device plugin misses (the product label).
func TestCPUOnGPU(t *testing.T) {
	web := checktest.Pod(corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=1")}})
	eval := checktest.Pod(corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=1,nvidia.com/mig-1g.10gb=1")}})
	gpuTaint := []corev1.Taint{{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	for _, tc := range []struct {
		name   string
		labels map[string]string
		taints []corev1.Taint
		alloc  string
		pod    *corev1.Pod
		want   bool
	}{
		{"GPU node", nil, nil, "cpu=8,pods=10,nvidia.com/gpu=1", web, true},
		{"MIG node", nil, nil, "cpu=8,pods=10,nvidia.com/mig-1g.10gb=7", web, true},
		{"GPUs the device plugin misses", map[string]string{"gpufleet.dev/gpu-product": "A100"}, nil, "cpu=8,pods=10", web, true},
		{"a MIG class on a MIG pool is not CPU-only", nil, nil, "cpu=8,pods=10,nvidia.com/mig-1g.10gb=7", eval, false},
		{"the GPU taint keeps it off", nil, gpuTaint, "cpu=8,pods=10,nvidia.com/gpu=1", web, false},
		{"CPU node", nil, nil, "cpu=8,pods=10", web, false},
	} {
		n := checktest.Node(tc.labels, tc.taints, tc.alloc)
		n.Status.Capacity = n.Status.Allocatable.DeepCopy()
		cl := onePool("p", false, n, "c", tc.pod)
		f := CPUOnGPU(cl, rows(cl), check.Intent{})
		if got := len(f) == 1 && f[0].Check == IDCPUOnGPU && f[0].Pool == "p"; got != tc.want || len(f) > 1 {
			t.Errorf("%s: findings %v, want a CPUOnGPU finding %v", tc.name, f, tc.want)
		}
	}
}
