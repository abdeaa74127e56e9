package queueing

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// What KueueDRA says of a queued class whose claim names a DeviceClass the
// mappings lack, or selects devices by CEL.
func TestKueueDRA(t *testing.T) {
	mapped := map[string]corev1.ResourceName{"gpu.nvidia.com": "nvidia.com/gpu", "mig-1g.10gb.gpufleet.dev": "nvidia.com/mig-1g.10gb"}
	class := func(deviceClass, selector string) *sched.Class {
		req := resourcev1.ExactDeviceRequest{DeviceClassName: deviceClass, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1}
		if selector != "" {
			req.Selectors = []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: selector}}}
		}
		tpl := "train-gpu"
		return &sched.Class{Name: "train",
			Pod: &corev1.Pod{Spec: corev1.PodSpec{ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &tpl}}}},
			Info: &sched.PodInfo{Claims: &sched.Claims{Devices: 1, Claims: []*resourcev1.ResourceClaim{{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
				Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &req}}}}}}}},
		}
	}
	for _, tc := range []struct {
		name  string
		class *sched.Class
		want  []string
	}{
		{"whole GPUs, mapped", class("gpu.nvidia.com", ""), nil},
		{"a MIG profile, mapped", class("mig-1g.10gb.gpufleet.dev", ""), nil},
		{"unmapped", class("mig-3g.40gb.gpufleet.dev", ""), []string{"tenant ml, class train: DeviceClass mig-3g.40gb.gpufleet.dev is not mapped in DRA configuration for podset main (kueue/dra-config.yaml), so Kueue never admits its workloads"}},
		{"a CEL selector", class("gpu.nvidia.com", `device.attributes["gpu.nvidia.com"].productName in ["NVIDIA H100 80GB HBM3"]`), []string{"ResourceClaimTemplate train-gpu selects devices by CEL, which Kueue admits only while the cluster's ResourceSlices hold enough matching devices"}},
		{"no claims", &sched.Class{Name: "cpu", Info: &sched.PodInfo{}}, nil},
	} {
		a := &check.Admission{Queue: kueuemodel.Queue{Tenant: "ml"}, Model: &kueuemodel.Model{DeviceClasses: mapped}, Classes: []check.Queued{{Class: tc.class}}}
		f := KueueDRA(a)
		if len(f) != len(tc.want) {
			t.Errorf("%s: findings %+v, want %d", tc.name, f, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(f[i].Message, w) || f[i].Check != IDKueueDRA || f[i].Severity != check.Error {
				t.Errorf("%s: finding %+v, want one containing %q", tc.name, f[i], w)
			}
		}
	}
}
