package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// The ground of DRA pools (docs/dra.md), before they exist: the NVIDIA
// DRA driver's own chart, rendered by Helm's SDK, gives the DeviceClass a
// claim names; aws.DRADevices gives the devices each GPU type's node
// publishes; and Kubernetes' structured allocator (the one kube-scheduler's
// DynamicResources plugin runs in Filter) decides which claims a node can
// allocate, with its CEL selectors compiled by the real CEL environment.

// draDeviceClasses renders the driver's chart for resource.k8s.io/v1 and
// returns its DeviceClasses by name.
func draDeviceClasses(t *testing.T) map[string]*resourcev1.DeviceClass {
	t.Helper()
	dir, err := upstream.DRADriver.File(upstream.DRADriverChart)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := loader.Load(dir)
	if err != nil {
		t.Fatalf("load chart: %v", err)
	}
	// An offline render names the API version. The chart refuses to
	// publish whole GPUs unless told the device plugin is kept off the
	// driver's nodes (templates/validation.yaml), which DRA pools will do.
	vals := chartutil.Values{"resourceApiVersion": "resource.k8s.io/v1", "gpuResourcesEnabledOverride": true}
	objs, err := helmTemplate(ch, vals, "nvidia-dra-driver-gpu", "nvidia-dra-driver-gpu", "v1.35.4")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*resourcev1.DeviceClass{}
	for _, o := range objs {
		if o.GetKind() != "DeviceClass" {
			continue
		}
		var dc resourcev1.DeviceClass
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &dc); err != nil {
			t.Fatal(err)
		}
		out[dc.Name] = &dc
	}
	if out["gpu.nvidia.com"] == nil {
		t.Fatalf("the chart %s renders no DeviceClass gpu.nvidia.com: %v", ch.Metadata.Version, slices.Sorted(func(yield func(string) bool) {
			for k := range out {
				yield(k)
			}
		}))
	}
	return out
}

type classLister map[string]*resourcev1.DeviceClass

func (l classLister) List() ([]*resourcev1.DeviceClass, error) {
	var out []*resourcev1.DeviceClass
	for _, c := range l {
		out = append(out, c)
	}
	return out, nil
}

func (l classLister) Get(name string) (*resourcev1.DeviceClass, error) {
	if c, ok := l[name]; ok {
		return c, nil
	}
	return nil, fmt.Errorf("device class %s not found", name)
}

// allocates reports whether the structured allocator allocates the claim
// on a node of the type, whose one ResourceSlice holds aws.DRADevices.
func allocates(t *testing.T, classes classLister, in catalog.Instance, claim *resourcev1.ResourceClaim) bool {
	t.Helper()
	devices, ok := aws.DRADevices(in)
	if !ok {
		t.Fatalf("%s: no DRA devices", in.Name)
	}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-" + in.Name}}
	slice := &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node.Name + "-" + aws.DRADriver},
		Spec: resourcev1.ResourceSliceSpec{
			Driver:   aws.DRADriver,
			NodeName: &node.Name,
			Pool:     resourcev1.ResourcePool{Name: node.Name, ResourceSliceCount: 1},
			Devices:  devices,
		},
	}
	state := structured.AllocatedState{AllocatedDevices: sets.New[structured.DeviceID](), AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](), AggregatedCapacity: structured.NewConsumedCapacityCollection()}
	a, err := structured.NewAllocator(context.Background(), structured.Features{}, state, classes, []*resourcev1.ResourceSlice{slice}, cel.NewCache(10, cel.Features{}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Allocate(context.Background(), node, []*resourcev1.ResourceClaim{claim})
	if err != nil {
		t.Fatalf("%s: %v", in.Name, err)
	}
	return len(res) == 1
}

// gpuClaim asks for count GPUs of the chart's class, each passing the CEL
// selector (none when "").
func gpuClaim(count int64, selector string) *resourcev1.ResourceClaim {
	req := resourcev1.DeviceRequest{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{
		DeviceClassName: "gpu.nvidia.com", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: count}}
	if selector != "" {
		req.Exactly.Selectors = []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: selector}}}
	}
	return &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", UID: "uid"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{req}}}}
}

// TestDRAAllocation: on every built-in GPU type, the chart's
// gpu.nvidia.com class allocates all the node's GPUs and no more; a
// selector naming the node's product allocates them; and a selector that
// compares memory with the catalog's label (a class's minMemoryGiB,
// written as gpufleet's node label is) fails on every model but the A100
// 80GB, because the driver publishes NVML's total memory (docs/dra.md):
// so a claim must select models by name, not compare memory.
func TestDRAAllocation(t *testing.T) {
	classes := classLister(draDeviceClasses(t))
	cat := aws.Catalog(nil)
	var types int
	memoryFails := map[string]bool{}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range cat {
			yield(n)
		}
	}) {
		in := cat[name]
		if in.GPU == nil || in.GPU.Count == 0 {
			continue
		}
		types++
		devices, _ := aws.DRADevices(in)
		product := *devices[0].Attributes["productName"].StringValue
		n := in.GPU.Count
		if !allocates(t, classes, in, gpuClaim(n, "")) {
			t.Errorf("%s: the chart's class does not allocate its %d GPUs", name, n)
		}
		if allocates(t, classes, in, gpuClaim(n+1, "")) {
			t.Errorf("%s: %d GPUs allocated on a node of %d", name, n+1, n)
		}
		byName := fmt.Sprintf("device.attributes['gpu.nvidia.com'].productName in [%q]", product)
		if !allocates(t, classes, in, gpuClaim(n, byName)) {
			t.Errorf("%s: a selector naming %q does not allocate", name, product)
		}
		byMemory := fmt.Sprintf("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('%dGi')) >= 0", in.GPU.MemoryGiB)
		if !allocates(t, classes, in, gpuClaim(1, byMemory)) {
			memoryFails[fmt.Sprintf("%s %dGi", in.GPU.Product, in.GPU.MemoryGiB)] = true
		}
	}
	got := slices.Sorted(func(yield func(string) bool) {
		for k := range memoryFails {
			yield(k)
		}
	})
	want := []string{"A100 40Gi", "A10G 24Gi", "B200 180Gi", "H100 80Gi", "H200 141Gi", "L4 24Gi", "L40S 48Gi", "T4 16Gi"}
	if !slices.Equal(got, want) {
		t.Errorf("a memory selector at the catalog's label fails on %v, want %v", got, want)
	}
	t.Logf("%d GPU types: the chart's gpu.nvidia.com class allocates each node's GPUs, a productName selector allocates them, a memory selector at the catalog's label fails on %s", types, strings.Join(got, ", "))
}

// TestDRAAllocationCatches: the allocator refuses what it must, so the
// test above can fail: a product the node does not have, and a class the
// chart does not define.
func TestDRAAllocationCatches(t *testing.T) {
	classes := classLister(draDeviceClasses(t))
	in := aws.Catalog(nil)["p4d.24xlarge"]
	if allocates(t, classes, in, gpuClaim(1, `device.attributes['gpu.nvidia.com'].productName in ["NVIDIA H100 80GB HBM3"]`)) {
		t.Error("an H100 selector allocated on a p4d")
	}
	c := gpuClaim(1, "")
	c.Spec.Devices.Requests[0].Exactly.DeviceClassName = "mig.nvidia.com"
	if allocates(t, classes, in, c) {
		t.Error("the MIG class allocated a whole GPU")
	}
	if got := resource.MustParse("40320Mi"); got.Cmp(resource.MustParse("40Gi")) >= 0 {
		t.Error("quantities compare wrongly")
	}
}
