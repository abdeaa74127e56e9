package check

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// 16 nominal GPUs against 2 nodes × 8.
func TestCommits(t *testing.T) {
	train := checktest.Pod(corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=10,nvidia.com/gpu=8")}})
	cl := &sched.Cluster{
		Pools:   []sched.Pool{{Name: "p", MaxNodes: 2, Nodes: []sched.Node{{Node: checktest.Node(nil, nil, "cpu=96,nvidia.com/gpu=8,pods=100")}}}},
		Classes: []sched.Class{{Name: "train", Pod: train, Info: sched.NewPodInfo(train), Pods: 4, Gang: true}},
	}
	in := Intent{Tenants: []TenantIntent{{Name: "t", Classes: []string{"train"}, Nominal: map[string]int64{"nvidia.com/gpu": 16000}}}}
	if c := Commits(cl, in); c[0].Resource != "nvidia.com/gpu" || c[0].Ratio != 1 {
		t.Errorf("overcommit %+v, want nvidia.com/gpu ratio 1", c[0])
	}
}
