package sched

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
)

// The extended-resource bridge as kube-scheduler's NodeResourcesFit and
// DynamicResources take it (extendeddynamicresources.go): a pod asking
// nvidia.com/gpu, with the claim kube-scheduler makes for it, on a node of
// the device plugin, one whose GPUs the DRA driver publishes, and a CPU
// node; and the same pod with no bridge, as the checker was (caught on the
// DRA node, where it refuses what kube-scheduler places).
func TestBridge(t *testing.T) {
	cat := aws.Catalog(nil)
	gpus := func(n int64) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32Gi"), corev1.ResourcePods: resource.MustParse("110"), keys.ResourceGPU: *resource.NewQuantity(n, resource.DecimalSI)}
	}
	cpu := gpus(0)
	delete(cpu, keys.ResourceGPU)
	devices, _ := aws.DRADevices(cat["g6e.12xlarge"])
	node := func(name string, alloc corev1.ResourceList, devs []resourcev1.Device) Node {
		return Node{InstanceType: name, Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Allocatable: alloc}}, Devices: devs}
	}
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), keys.ResourceGPU: resource.MustParse("2")},
		Limits:   corev1.ResourceList{keys.ResourceGPU: resource.MustParse("2")},
	}}}}}
	req := resourcev1.ExactDeviceRequest{DeviceClassName: dradriver.DeviceClassGPU, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 2}
	bridge := &Claims{Extended: keys.ResourceGPU, Devices: 2, Claims: []*resourcev1.ResourceClaim{{
		ObjectMeta: metav1.ObjectMeta{Name: "pod-extended-resources"},
		Spec:       resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "container-0-request-1", Exactly: &req}}}},
	}}}
	for _, tc := range []struct {
		name    string
		n       Node
		bridge  *Claims
		reasons []string
		perNode int64
	}{
		{"the device plugin's GPUs: counted, no claim", node("dp", gpus(4), nil), bridge, nil, 2},
		{"too few of the device plugin's GPUs", node("dp1", gpus(1), nil), bridge, []string{"Insufficient nvidia.com/gpu"}, 0},
		{"the DRA driver's 4 L40S: left to DRA, 2 pods", node("dra", cpu, devices), bridge, nil, 2},
		{"a CPU node: left to DRA, which allocates nothing", node("cpu", cpu, nil), bridge, []string{ErrReasonClaims}, 0},
		{"bridge-blind on the DRA node", node("dra", cpu, devices), nil, []string{"Insufficient nvidia.com/gpu"}, 0},
	} {
		pi := NewPodInfo(pod)
		pi.Bridge = tc.bridge
		got := nodeResourcesFit(pi, tc.n.Node)
		if len(got) == 0 {
			got = dynamicResources(pi, tc.n)
		}
		if !slices.Equal(got, tc.reasons) {
			t.Errorf("%s: reasons %q, want %q", tc.name, got, tc.reasons)
		}
		if len(got) == 0 {
			if k := PodsPerNodeOn(pi, tc.n); k != tc.perNode {
				t.Errorf("%s: %d pods per node, want %d", tc.name, k, tc.perNode)
			}
		}
	}
}
