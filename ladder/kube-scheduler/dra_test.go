package kubesched

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
)

// draInputs are what the DynamicResources plugin reads for a fleet: the
// driver chart's DeviceClass (the checker's copy, which e2e holds to the
// chart) and the tree's (a MIG profile's each), read from its YAML, a
// ResourceSlice per node that publishes devices (the devices
// the checker synthesised: aws.DRADevices, which make test-karpenter holds
// to karpenter-provider-aws's drametadata), and the tree's
// ResourceClaimTemplates, read from its YAML.
func draInputs(t testing.TB, res *compiler.Result, cl *sched.Cluster) DRA {
	t.Helper()
	dra := DRA{Classes: dradriver.DeviceClasses()}
	devices := map[string][]resourcev1.Device{}
	for _, p := range cl.Pools {
		for _, n := range p.Nodes {
			devices[n.Name] = n.Devices
		}
	}
	dra.Slices = slicesOf(devices)
	seen := map[string]bool{}
	for _, doc := range tree.Docs(res.Tree[tree.DRADeviceClassesPath]) {
		var dc resourcev1.DeviceClass
		if err := tree.Decode(doc, &dc); err != nil {
			t.Fatalf("%s: %v", tree.DRADeviceClassesPath, err)
		}
		dra.Classes = append(dra.Classes, &dc)
	}
	for p, raw := range res.Tree {
		if path.Base(p) != tree.ResourceClaimTemplatesFile {
			continue
		}
		for _, doc := range tree.Docs(raw) {
			var rct resourcev1.ResourceClaimTemplate
			if err := tree.Decode(doc, &rct); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if !seen[rct.Name] {
				seen[rct.Name] = true
				rct.Namespace = "" // each pod's own namespace's copy
				dra.Templates = append(dra.Templates, &rct)
			}
		}
	}
	return dra
}

// slicesOf are one ResourceSlice per node that publishes devices, as the
// driver's kubelet plugin publishes it, in node name order.
func slicesOf(devices map[string][]resourcev1.Device) []*resourcev1.ResourceSlice {
	var out []*resourcev1.ResourceSlice
	for _, name := range slices.Sorted(maps.Keys(devices)) {
		if len(devices[name]) == 0 {
			continue
		}
		node := name
		out = append(out, &resourcev1.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-" + dradriver.DeviceClassGPU},
			Spec: resourcev1.ResourceSliceSpec{
				Driver: dradriver.DeviceClassGPU, NodeName: &node,
				Pool:    resourcev1.ResourcePool{Name: name, ResourceSliceCount: 1},
				Devices: devices[name],
			},
		})
	}
	return out
}

// devicesAtMaxSize are the devices of atMaxSize's nodes, by name: those
// the checker's node of the pool's credited type publishes.
func devicesAtMaxSize(cl *sched.Cluster, cells []sched.Cell) map[string][]resourcev1.Device {
	out := map[string][]resourcev1.Device{}
	eachAtMaxSize(cl, cells, func(_ int, name string, n sched.Node) { out[name] = n.Devices })
	return out
}

// A checker that ignores a DRA class's claims (its pods counted per node
// by CPU and memory alone, as if the node's devices held any number) is
// caught by the placement differential: kube-scheduler's DynamicResources
// places fewer pods than it says the fleet holds.
func TestPlacementCatchesClaimsIgnored(t *testing.T) {
	var tried, caught int
	var example string
	for _, fc := range fleetCases(t) {
		res, cl := fc.compile(t)
		dra := draInputs(t, res, cl)
		for i := range cl.Classes {
			c := &cl.Classes[i]
			if !c.Info.Claims.Asks() || c.Queued {
				continue
			}
			cells := make([]sched.Cell, len(cl.Pools))
			for j, p := range cl.Pools {
				cells[j] = *res.Report.Cell(c.Name, p.Name)
			}
			nodes, poolOf := atMaxSize(cl, cells)
			dra.Slices = slicesOf(devicesAtMaxSize(cl, cells))
			got, err := ScheduleDRA(emittedProfiles(t, fc.name, res)[c.Pod.Spec.SchedulerName], podsOf(c), nodes, dra, tieBreak(0))
			if err != nil {
				t.Fatalf("%s: class %s: %v", fc.name, c.Name, err)
			}
			blind := *c
			blind.Info = sched.Like(c.Pod, nil) // no claims
			bcells := make([]sched.Cell, len(cl.Pools))
			for j := range cl.Pools {
				bcells[j] = sched.Evaluate(&blind, &cl.Pools[j])
			}
			want := sched.Holds(&blind, sched.NewRow(bcells), cl.Pools)
			tried++
			if d := compare(&blind, bcells, cl.Pools, nodes, poolOf, nil, want, got); len(d) > 0 {
				caught++
				if example == "" {
					example = fmt.Sprintf("%s: class %s: %s", fc.name, c.Name, d[0])
				}
			}
		}
	}
	t.Logf("a claims-blind checker: %d of %d unqueued DRA classes caught, e.g. %s", caught, tried, example)
	if caught == 0 {
		t.Errorf("a claims-blind checker went unnoticed in %d DRA classes", tried)
	}
}

// TestAllocatorFeatures holds the checker's allocator and CEL features to
// the ones kube-scheduler's DynamicResources plugin runs with under the
// default feature gates: the allocator chooses its implementation by them.
func TestAllocatorFeatures(t *testing.T) {
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	if diff := cmp.Diff(dynamicresources.AllocatorFeatures(fts), sched.AllocatorFeatures); diff != "" {
		t.Errorf("allocator features (-kube-scheduler +checker):\n%s", diff)
	}
	want := cel.Features{EnableConsumableCapacity: fts.EnableDRAConsumableCapacity, EnableListTypeAttributes: fts.EnableDRAListTypeAttributes}
	if diff := cmp.Diff(want, sched.CELFeatures); diff != "" {
		t.Errorf("CEL features (-kube-scheduler +checker):\n%s", diff)
	}
}

// claimsOf are what the class's pods have the DRA manager allocate: their
// own claims, or the extended-resource bridge's claim for nvidia.com/gpu.
func claimsOf(c *sched.Class) *sched.Claims {
	if c.Info.Claims.Asks() {
		return c.Info.Claims
	}
	return c.Info.Bridge
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A checker blind to the extended-resource bridge (a pod asking for
// nvidia.com/gpu refused wherever the node advertises none, as before
// DRAExtendedResource) is caught by the real DynamicResources and
// NodeResourcesFit plugins, whose DRA manager maps nvidia.com/gpu to the
// driver chart's DeviceClass: on the bridged pool's nodes they place the
// pod where the blind checker says "Insufficient nvidia.com/gpu", and on
// the other nodes without the resource they refuse it for its claim.
func TestFilterCatchesBridgeBlind(t *testing.T) {
	var bridged, caught, nodes int
	var example string
	for _, fc := range fleetCases(t) {
		res, cl := fc.compile(t)
		dra := draInputs(t, res, cl)
		var all []*v1.Node
		devices := map[string][]resourcev1.Device{}
		for _, p := range cl.Pools {
			for _, n := range p.Nodes {
				all = append(all, n.Node)
				devices[n.Name] = n.Devices
			}
		}
		for i := range cl.Classes {
			c := &cl.Classes[i]
			if !c.Info.Bridge.Asks() {
				continue
			}
			bridged++
			theirs, err := FilterDRA(c.Pod, all, nil, dra)
			if err != nil {
				t.Fatalf("%s: class %s: %v", fc.name, c.Name, err)
			}
			aware := sched.FilterPopulatedDRA(c.Pod, c.Info.Bridge, all, devices, nil)
			blind := sched.FilterPopulated(c.Pod, all, nil)
			hit := false
			for _, n := range all {
				want := sorted(theirs[n.Name])
				if got := sorted(aware[n.Name]); !slices.Equal(got, want) {
					t.Errorf("%s: class %s on node %s: checker %q, kube-scheduler %q", fc.name, c.Name, n.Name, got, want)
				}
				if got := sorted(blind[n.Name]); !slices.Equal(got, want) {
					nodes++
					if !hit && example == "" {
						example = fmt.Sprintf("%s: class %s on node %s: blind checker %q, kube-scheduler %q", fc.name, c.Name, n.Name, got, want)
					}
					hit = true
				}
			}
			if hit {
				caught++
			}
		}
	}
	t.Logf("%d classes asking nvidia.com/gpu where the chart's DeviceClass maps it: a bridge-blind checker is caught on %d (%d nodes), e.g. %s", bridged, caught, nodes, example)
	if bridged == 0 || caught == 0 {
		t.Errorf("%d bridged classes, a bridge-blind checker caught on %d: want some", bridged, caught)
	}
}
