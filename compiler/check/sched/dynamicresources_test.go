package sched

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
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

// MIG devices: a profile's DeviceClass takes its own slices of a mixed
// layout, and a claim of more slices than are left ends at once (the
// allocator alone would search every subset of the 26 left: 2^26 steps).
func TestDynamicResourcesMIG(t *testing.T) {
	cat := aws.Catalog(nil)
	in := cat["p4de.24xlarge"]
	gpus, _ := aws.DRADevices(in)
	claims := func(profile string, count int64) *Claims {
		req := resourcev1.ExactDeviceRequest{DeviceClassName: dradriver.MIGDeviceClassName(profile), AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: count}
		return &Claims{Devices: count, Classes: []*resourcev1.DeviceClass{dradriver.MIGDeviceClass(profile)}, Claims: []*resourcev1.ResourceClaim{{
			ObjectMeta: metav1.ObjectMeta{Name: "pod-gpu"},
			Spec:       resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &req}}}},
		}}}
	}
	for _, tc := range []struct {
		name, layout, profile string
		count, perNode        int64
	}{
		{"56 1g.10gb slices one by one", "all-1g.10gb", "1g.10gb", 1, 56},
		{"30 of 56, then 26 left", "all-1g.10gb", "1g.10gb", 30, 1},
		{"33: more than the 32 devices a claim allocates", "all-1g.10gb", "1g.10gb", 33, 0},
		{"57 of 56", "all-1g.10gb", "1g.10gb", 57, 0},
		{"all-balanced: two 1g.10gb a GPU", "all-balanced", "1g.10gb", 1, 16},
		{"all-balanced: one 3g.40gb a GPU", "all-balanced", "3g.40gb", 2, 4},
		{"a profile the layout lacks", "all-1g.10gb", "3g.40gb", 1, 0},
	} {
		profiles, ok := catalog.MIGLayout(in.GPU, tc.layout)
		if !ok {
			t.Fatalf("%s: no layout %s", tc.name, tc.layout)
		}
		n := Node{InstanceType: in.Name, Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{keys.LabelMIGConfig: tc.layout}}}, Devices: dradriver.MIGDevices(gpus, profiles)}
		if got := claims(tc.profile, tc.count).perNode(n); got != tc.perNode {
			t.Errorf("%s: %d pods' claims per node, want %d", tc.name, got, tc.perNode)
		}
	}
}
