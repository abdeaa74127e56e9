package check

import (
	"math"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// quotaFleet is a gang of 4 pods of 8 GPUs on a pool of 2 nodes of 8, and
// its tenant's quota.
func quotaFleet() (*Cluster, Intent) {
	train := pod(corev1.PodSpec{Containers: []corev1.Container{container("cpu=10,nvidia.com/gpu=8")}})
	cl := &Cluster{
		Pools:   []Pool{{Name: "p", MaxNodes: 2, Nodes: []Node{{Node: node(nil, nil, "cpu=96,nvidia.com/gpu=8,pods=100")}}}},
		Classes: []Class{{Name: "train", Pod: train, Info: NewPodInfo(train), Pods: 4, Gang: true}},
	}
	return cl, Intent{Tenants: []TenantIntent{{
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

// mulSat saturates instead of wrapping, so a huge need never looks small.
func TestMulSat(t *testing.T) {
	for _, tc := range []struct{ a, b, want int64 }{
		{0, math.MaxInt64, 0},
		{3, 4, 12},
		{1 << 40, 1 << 22, 1 << 62},
		{1 << 40, 1 << 23, math.MaxInt64},
		{math.MaxInt64, 2, math.MaxInt64},
		{1_125_899_906_842_624_000, 64, math.MaxInt64}, // 1Pi in milli-units, a gang of 64
	} {
		if got := mulSat(tc.a, tc.b); got != tc.want {
			t.Errorf("mulSat(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
