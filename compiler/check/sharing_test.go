package check_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// sharingFleet has a time-sliced and a whole L4 pool, and a MIG and a whole
// A100 pool, with a class of each kind.
const sharingFleet = `package fleet
cluster: {provider: "eks", name: "sh", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
priorities: p: value: 1
pools: {
	"l4-ts": {instanceTypes: ["g6.12xlarge"], sharing: {strategy: "time-slicing", replicas: 4}, size: {min: 0, max: 2}}
	"l4": {instanceTypes: ["g6.12xlarge"], size: {min: 0, max: 2}}
	"a100-mig": {instanceTypes: ["p4de.24xlarge"], mig: "all-1g.10gb", size: {min: 0, max: 1}}
	"a100": {instanceTypes: ["p4de.24xlarge"], size: {min: 0, max: 1}}
}
classes: {
	whole: {priority: "p", gpu: {count: 1, products: ["L4"]}}
	shared: {priority: "p", gpu: {count: 1, products: ["L4"], shared: true}}
	slice: {priority: "p", gpu: {count: 1, mig: "1g.10gb"}}
	"whole-a100": {priority: "p", gpu: {count: 1, products: ["A100"]}}
	// 2 nodes x 4 L4 x 4 replicas: 32 shared GPUs hold the gang; 8 whole ones do not.
	"gang-shared": {priority: "p", kind: "Job", gang: 32, gpu: {count: 1, products: ["L4"], shared: true}, resources: cpu: "1"}
	"gang-whole": {priority: "p", kind: "Job", gang: 32, gpu: {count: 1, products: ["L4"]}, resources: cpu: "1"}
	// 1 node x 8 A100 x 7 slices.
	"gang-slice": {priority: "p", kind: "Job", gang: 56, gpu: {count: 1, mig: "1g.10gb"}, resources: cpu: "1"}
}
tenants: t: {namespaces: ["t"], classes: ["whole", "shared", "slice", "whole-a100", "gang-shared", "gang-whole", "gang-slice"]}
`

func compileSharing(t *testing.T) *compiler.Result {
	t.Helper()
	f := testfleet.Write(t, sharingFleet)
	res, err := compiler.Compile([]string{f})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSharingPlacement proves that each kind of GPU request lands only on
// its kind of pool, and that time-slicing and MIG multiply capacity.
func TestSharingPlacement(t *testing.T) {
	res := compileSharing(t)
	rep := res.Report
	lands := map[string]string{"whole": "l4", "shared": "l4-ts", "slice": "a100-mig", "whole-a100": "a100",
		"gang-shared": "l4-ts", "gang-whole": "l4", "gang-slice": "a100-mig"}
	for class, want := range lands {
		for _, pool := range []string{"l4-ts", "l4", "a100-mig", "a100"} {
			c := rep.Cell(class, pool)
			if c == nil {
				t.Fatalf("no verdict for %s on %s", class, pool)
			}
			if c.Fits != (pool == want) {
				t.Errorf("%s on %s: fits %v %v; want it to land on %s alone", class, pool, c.Fits, c.Reasons, want)
			}
		}
	}
	for class, want := range map[string]int64{"gang-shared": 32, "gang-whole": 8, "gang-slice": 56} {
		if got := rep.Cell(class, lands[class]).Capacity; got != want {
			t.Errorf("%s: capacity %d on %s, want %d", class, got, lands[class], want)
		}
	}
	// Only the whole-GPU gang fails: Kueue (KueueQuota), which admits the
	// queued gang whole to one flavor, sees 8 GPUs; MIG slices are
	// covered and held.
	var gang bool
	for _, f := range rep.Findings {
		if f.Severity == check.Error && f.Class != "gang-whole" {
			t.Errorf("unexpected error: %s %s: %s", f.Check, f.Class, f.Message)
		}
		gang = gang || f.Check == "KueueQuota" && f.Class == "gang-whole" && strings.Contains(f.Message, "maximum capacity (8)")
	}
	if !gang {
		t.Errorf("no KueueQuota error for gang-whole: %v", rep.Findings)
	}
}

// TestSharingAllocatable reads the synthesised nodes: time-sliced nodes
// advertise GPUs x replicas, MIG nodes slices and no whole GPU, so the
// filters refuse a whole-GPU pod there even without the affinity.
func TestSharingAllocatable(t *testing.T) {
	res := compileSharing(t)
	cl, err := res.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[corev1.ResourceName]int64{
		"l4-ts":    {"nvidia.com/gpu": 16},
		"l4":       {"nvidia.com/gpu": 4},
		"a100-mig": {"nvidia.com/gpu": 0, "nvidia.com/mig-1g.10gb": 56},
		"a100":     {"nvidia.com/gpu": 8},
	}
	for _, p := range cl.Pools {
		n := p.Nodes[0].Node
		for r, v := range want[p.Name] {
			if q := n.Status.Allocatable[r]; q.Value() != v {
				t.Errorf("%s: allocatable %s = %s, want %d", p.Name, r, q.String(), v)
			}
		}
		if p.Name == "a100-mig" {
			whole := cl.Class("whole-a100")
			pod := whole.Pod.DeepCopy()
			pod.Spec.Affinity = nil
			if got := sched.NodeResourcesFit.Filter(sched.NewPodInfo(pod), n); len(got) != 1 || got[0] != "Insufficient nvidia.com/gpu" {
				t.Errorf("whole GPU on a MIG node: %v", got)
			}
		}
	}
}

// TestSharingReaderCanFail: a label naming a profile the device plugin's
// ConfigMap lacks would leave the node with whole GPUs, so readback.FromTree refuses.
func TestSharingReaderCanFail(t *testing.T) {
	res := compileSharing(t)
	tr := tree.Tree{}
	for p, b := range res.Tree {
		tr[p] = b
	}
	tr[tree.DevicePluginConfigPath] = []byte(strings.Replace(string(tr[tree.DevicePluginConfigPath]), "time-slicing-4:", "time-slicing-8:", 1))
	if _, err := readBack(tr, res.Catalog); err == nil || !strings.Contains(err.Error(), `names "time-slicing-4", which cluster/nvidia-device-plugin-config.yaml lacks`) {
		t.Fatalf("got %v", err)
	}
}
