package resourcequota

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// quotaFleet is a gang of 4 pods of 8 GPUs on a pool of 2 nodes of 8, and
// its tenant's quota.
func quotaFleet() (*sched.Cluster, check.Intent) {
	train := checktest.Pod(corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=10,nvidia.com/gpu=8")}})
	cl := &sched.Cluster{
		Pools:   []sched.Pool{{Name: "p", MaxNodes: 2, Nodes: []sched.Node{{Node: checktest.Node(nil, nil, "cpu=96,nvidia.com/gpu=8,pods=100")}}}},
		Classes: []sched.Class{{Name: "train", Pod: train, Info: sched.NewPodInfo(train), Pods: 4, Gang: true}},
	}
	return cl, check.Intent{Tenants: []check.TenantIntent{{
		Name: "t", Classes: []string{"train"},
		Hard:    map[string]int64{"nvidia.com/gpu": 24000, "cpu": 100000},
		Nominal: map[string]int64{"nvidia.com/gpu": 16000},
	}}}
}

func TestQuotaFit(t *testing.T) {
	cl, in := quotaFleet()
	f := QuotaFit(cl, nil, in)
	if len(f) != 1 || !strings.Contains(f[0].Message, "nvidia.com/gpu needs 32, quota holds 24") || !strings.Contains(f[0].Message, "ExceedsMaxQuota") {
		t.Fatalf("got %v", f)
	}
	in.Tenants[0].Hard["nvidia.com/gpu"] = 32000
	if f := QuotaFit(cl, nil, in); len(f) != 0 {
		t.Fatalf("32 GPUs hold the gang: %v", f)
	}
}
