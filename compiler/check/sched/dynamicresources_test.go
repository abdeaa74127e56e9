package sched

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
)

// The DynamicResources filter and how many pods' claims a node holds, from
// Kubernetes' structured allocator on the devices a node of each type
// publishes.
func TestDynamicResources(t *testing.T) {
	cat := aws.Catalog(nil)
	claims := func(count int64, selector string) *Claims {
		req := resourcev1.ExactDeviceRequest{DeviceClassName: dradriver.DeviceClassGPU, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: count}
		if selector != "" {
			req.Selectors = []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: selector}}}
		}
		return &Claims{Devices: count, Claims: []*resourcev1.ResourceClaim{{
			ObjectMeta: metav1.ObjectMeta{Name: "pod-gpu"},
			Spec:       resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &req}}}},
		}}}
	}
	const h100 = `device.attributes["gpu.nvidia.com"].productName in ["NVIDIA H100 80GB HBM3"]`
	for _, tc := range []struct {
		name, typ string
		claims    *Claims
		publishes bool
		perNode   int64
	}{
		{"two 4-GPU pods on a p5", "p5.48xlarge", claims(4, h100), true, 2},
		{"eight 1-GPU pods on a p5", "p5.48xlarge", claims(1, ""), true, 8},
		{"16 GPUs on an 8-GPU node", "p5.48xlarge", claims(16, h100), true, 0},
		{"an H100 selector on a p4d", "p4d.24xlarge", claims(1, h100), true, 0},
		{"no ResourceSlice", "p5.48xlarge", claims(1, ""), false, 0},
		{"an L40S by its product name", "g6e.2xlarge", claims(1, `device.attributes["gpu.nvidia.com"].productName in ["NVIDIA L40S"]`), true, 1},
	} {
		n := Node{InstanceType: tc.typ, Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n-" + tc.typ}}}
		if tc.publishes {
			var ok bool
			if n.Devices, ok = aws.DRADevices(cat[tc.typ]); !ok {
				t.Fatalf("%s: no devices for %s", tc.name, tc.typ)
			}
		}
		pi := &PodInfo{Claims: tc.claims}
		if got := tc.claims.perNode(n); got != tc.perNode {
			t.Errorf("%s: %d pods' claims per node, want %d", tc.name, got, tc.perNode)
		}
		got := dynamicResources(pi, n)
		if want := tc.perNode > 0; (len(got) == 0) != want || !want && !slices.Equal(got, []string{ErrReasonClaims}) {
			t.Errorf("%s: reasons %q, fits want %v", tc.name, got, want)
		}
	}
	if got := dynamicResources(&PodInfo{}, Node{}); got != nil {
		t.Errorf("a pod without claims: %q", got)
	}
}
