package resourcequota

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"

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

// TestQuotaFitClaims: an unqueued DRA class's pods carry no nvidia.com/gpu
// request; quota admission charges their ResourceClaims' devices against
// "<class>.deviceclass.resource.k8s.io/devices", and so does QuotaFit.
func TestQuotaFitClaims(t *testing.T) {
	serve := checktest.Pod(corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=4")}})
	info := sched.NewPodInfo(serve)
	claim := func(class string, mode resourcev1.DeviceAllocationMode, n int64) *resourcev1.ResourceClaim {
		return &resourcev1.ResourceClaim{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{
			{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: class, AllocationMode: mode, Count: n}},
		}}}}
	}
	for _, tc := range []struct {
		name   string
		claims []*resourcev1.ResourceClaim
		hard   map[string]int64
		want   string // "" for no finding
	}{
		{"within", []*resourcev1.ResourceClaim{claim("gpu.nvidia.com", "ExactCount", 2)},
			map[string]int64{"gpu.nvidia.com.deviceclass.resource.k8s.io/devices": 8000}, ""},
		{"over", []*resourcev1.ResourceClaim{claim("gpu.nvidia.com", "ExactCount", 3)},
			map[string]int64{"gpu.nvidia.com.deviceclass.resource.k8s.io/devices": 8000},
			"gpu.nvidia.com.deviceclass.resource.k8s.io/devices needs 12, quota holds 8"},
		{"another class's quota", []*resourcev1.ResourceClaim{claim("mig-1g.10gb.gpufleet.dev", "ExactCount", 3)},
			map[string]int64{"gpu.nvidia.com.deviceclass.resource.k8s.io/devices": 8000}, ""},
		{"All is the worst case", []*resourcev1.ResourceClaim{claim("gpu.nvidia.com", "All", 0)},
			map[string]int64{"gpu.nvidia.com.deviceclass.resource.k8s.io/devices": 64000},
			"needs 128, quota holds 64"},
		{"claims counted", []*resourcev1.ResourceClaim{claim("gpu.nvidia.com", "ExactCount", 1), claim("gpu.nvidia.com", "ExactCount", 1)},
			map[string]int64{"count/resourceclaims.resource.k8s.io": 4000},
			"count/resourceclaims.resource.k8s.io needs 8, quota holds 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := *info
			i.Claims = &sched.Claims{Claims: tc.claims}
			cl := &sched.Cluster{Classes: []sched.Class{{Name: "serve", Pod: serve, Info: &i, Pods: 4}}}
			in := check.Intent{Tenants: []check.TenantIntent{{Name: "t", Classes: []string{"serve"}, Hard: tc.hard}}}
			f := QuotaFit(cl, nil, in)
			switch {
			case tc.want == "" && len(f) > 0:
				t.Errorf("unexpected %v", f)
			case tc.want != "" && (len(f) != 1 || !strings.Contains(f[0].Message, tc.want)):
				t.Errorf("got %v, want %q", f, tc.want)
			}
		})
	}
}

// TestQuotaFitShare: a tenant with several namespaces gets its unqueued
// classes' quota split over them (issue 48), so the gang must fit the
// smallest namespace's share, in a quota scoped to the class's priority.
func TestQuotaFitShare(t *testing.T) {
	for _, tc := range []struct {
		name       string
		share      int64
		priorities []string
		want       string
	}{
		{"fits its share", 32, []string{"batch"}, ""},
		{"over its share", 16, []string{"batch"}, "nvidia.com/gpu needs 32, its namespace's share of the quota holds 16"},
		{"another priority's share", 16, []string{"serving"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, in := quotaFleet()
			in.Tenants[0].Hard["nvidia.com/gpu"] = 64000
			in.Priorities = map[string]check.PriorityIntent{"train": {Name: "batch"}}
			in.Tenants[0].Share = map[string]int64{"nvidia.com/gpu": tc.share * 1000}
			in.Tenants[0].SharePriorities = tc.priorities
			f := QuotaFit(cl, nil, in)
			switch {
			case tc.want == "" && len(f) > 0:
				t.Fatalf("want no finding, got %v", f)
			case tc.want != "" && (len(f) != 1 || !strings.Contains(f[0].Message, tc.want)):
				t.Fatalf("want %q, got %v", tc.want, f)
			}
		})
	}
}
