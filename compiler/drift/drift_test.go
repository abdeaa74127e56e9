package drift_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/drift"
	"github.com/gpufleet/gpufleet/internal/testfleet"
	"github.com/gpufleet/gpufleet/internal/testrender"
)

// launched compiles the spec at path and returns it with the nodes its
// pools launch.
func launched(t *testing.T, path string) (*compiler.Result, []corev1.Node) {
	t.Helper()
	res, err := compiler.Compile([]string{path})
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	cl, err := res.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	return res, drift.Launched(cl)
}

// The nodes the pools of every example fleet launch have no drift, and
// each maps to its pool.
func TestExamplesNoDrift(t *testing.T) {
	dirs, err := filepath.Glob("../../fleets/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no example fleets: %v", err)
	}
	dirs = append(dirs, testfleet.Write(t, testrender.NodeGroupsFleet))
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			res, nodes := launched(t, dir)
			rep, err := res.Drift(nodes)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rep.Findings {
				t.Errorf("%s: %s", f.Kind, f.Message)
			}
			if len(rep.Pools) != len(res.Groups) || rep.Nodes() != len(nodes) || len(nodes) == 0 {
				t.Errorf("%d pools, %d of %d nodes compared", len(rep.Pools), rep.Nodes(), len(nodes))
			}
			for _, p := range rep.Pools {
				for _, n := range p.Nodes {
					if !strings.HasPrefix(n, p.Name+"-") {
						t.Errorf("node %s mapped to pool %s", n, p.Name)
					}
				}
			}
		})
	}
}

// Each mutation of a clean cluster is reported as its kind, and only it.
func TestKinds(t *testing.T) {
	res, clean := launched(t, testfleet.Write(t, testrender.NodeGroupsFleet))
	gpu := func(n int64) resource.Quantity { return *resource.NewQuantity(n, resource.DecimalSI) }
	for _, tc := range []struct {
		name   string
		pool   string // the first node of this pool is mutated
		mutate func(n *corev1.Node)
		want   []drift.Kind
	}{
		{"clean", "cpu", func(n *corev1.Node) {}, nil},
		{"label removed", "cpu", func(n *corev1.Node) { delete(n.Labels, "example.com/tier") }, []drift.Kind{drift.MissingLabel}},
		{"pool label removed, node group label", "l4", func(n *corev1.Node) {
			delete(n.Labels, "gpufleet.dev/pool")
			n.Labels["eks.amazonaws.com/nodegroup"] = "l4"
		}, []drift.Kind{drift.MissingLabel}},
		{"label changed", "cpu", func(n *corev1.Node) { n.Labels["gpufleet.dev/capacity-type"] = "spot" }, []drift.Kind{drift.MissingLabel}},
		{"gpufleet label added", "cpu", func(n *corev1.Node) { n.Labels["gpufleet.dev/dedicated"] = "web" }, []drift.Kind{drift.ExtraLabel}},
		{"other label added", "cpu", func(n *corev1.Node) { n.Labels["example.com/other"] = "x" }, nil},
		{"taint removed", "l4", func(n *corev1.Node) {
			n.Spec.Taints = slices.DeleteFunc(slices.Clone(n.Spec.Taints), func(t corev1.Taint) bool { return t.Key == "example.com/batch" })
		}, []drift.Kind{drift.MissingTaint}},
		{"taint added", "cpu", func(n *corev1.Node) {
			n.Spec.Taints = append(slices.Clone(n.Spec.Taints), corev1.Taint{Key: "example.com/maintenance", Effect: corev1.TaintEffectNoSchedule})
		}, []drift.Kind{drift.ExtraTaint}},
		{"managed taint added", "cpu", func(n *corev1.Node) {
			n.Spec.Taints = append(slices.Clone(n.Spec.Taints), corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
		}, nil},
		{"instance type outside the pool", "cpu", func(n *corev1.Node) { n.Labels["node.kubernetes.io/instance-type"] = "m7i.xlarge" }, []drift.Kind{drift.InstanceType}},
		{"instance type unknown", "cpu", func(n *corev1.Node) { n.Labels["node.kubernetes.io/instance-type"] = "x9.huge" }, []drift.Kind{drift.InstanceType}},
		{"no instance type", "cpu", func(n *corev1.Node) { delete(n.Labels, "node.kubernetes.io/instance-type") }, []drift.Kind{drift.InstanceType}},
		{"GPUs 0", "l4", func(n *corev1.Node) { n.Status.Allocatable["nvidia.com/gpu"] = gpu(0) }, []drift.Kind{drift.NoDevicePlugin}},
		{"GPUs absent", "l4", func(n *corev1.Node) { delete(n.Status.Allocatable, "nvidia.com/gpu") }, []drift.Kind{drift.NoDevicePlugin}},
		{"GPUs fewer", "a100-efa", func(n *corev1.Node) { n.Status.Allocatable["nvidia.com/gpu"] = gpu(7) }, []drift.Kind{drift.GPUs}},
		{"GPUs on a CPU node", "cpu", func(n *corev1.Node) { n.Status.Allocatable["nvidia.com/gpu"] = gpu(1) }, []drift.Kind{drift.GPUs}},
		{"memory 10% less", "cpu", func(n *corev1.Node) { scaleMemory(n, 0.9) }, []drift.Kind{drift.Memory}},
		{"memory 10% more", "l4", func(n *corev1.Node) { scaleMemory(n, 1.1) }, []drift.Kind{drift.Memory}},
		{"memory 4% more", "cpu", func(n *corev1.Node) { scaleMemory(n, 1.04) }, nil},
		// drift ignored a node's zone: the zone checks counted it where it is not.
		{"zone outside the pool", "a100-efa", func(n *corev1.Node) { n.Labels["topology.kubernetes.io/zone"] = "us-east-1a" }, []drift.Kind{drift.Zone}},
		{"no zone", "a100-efa", func(n *corev1.Node) { delete(n.Labels, "topology.kubernetes.io/zone") }, []drift.Kind{drift.Zone}},
		{"no pool", "cpu", func(n *corev1.Node) { delete(n.Labels, "gpufleet.dev/pool") }, []drift.Kind{drift.NoPool}},
		{"pool not in the fleet", "cpu", func(n *corev1.Node) { n.Labels["gpufleet.dev/pool"] = "gone" }, []drift.Kind{drift.NoPool}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes := make([]corev1.Node, len(clean))
			for i := range clean {
				nodes[i] = *clean[i].DeepCopy()
			}
			i := slices.IndexFunc(nodes, func(n corev1.Node) bool { return strings.HasPrefix(n.Name, tc.pool+"-") })
			if i < 0 {
				t.Fatalf("no node of pool %s", tc.pool)
			}
			tc.mutate(&nodes[i])
			rep, err := res.Drift(nodes)
			if err != nil {
				t.Fatal(err)
			}
			var got []drift.Kind
			for _, f := range rep.Findings {
				got = append(got, f.Kind)
				if f.Node != nodes[i].Name || !strings.HasPrefix(f.Message, "node "+nodes[i].Name+" ") {
					t.Errorf("finding on another node: %+v", f)
				}
				if f.Kind != drift.NoPool && (f.Pool != tc.pool || f.Pos.Line == 0) {
					t.Errorf("finding not on pool %s's entry: %+v", tc.pool, f)
				}
				if drift.Describe(f.Kind) == "" {
					t.Errorf("kind %s not in Kinds", f.Kind)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("kinds %v, want %v: %+v", got, tc.want, rep.Findings)
			}
			if tc.want == nil || tc.want[0] != drift.NoPool {
				return
			}
			if !slices.Equal(rep.Unmatched, []string{nodes[i].Name}) {
				t.Errorf("unmatched %v, want %s", rep.Unmatched, nodes[i].Name)
			}
		})
	}
}

// A pool with zoneGroups has a managed node group per zone, <pool>-<zone>;
// a node that lost the pool label maps to the pool by its group's name,
// which was taken for no pool's.
func TestZoneGroupNodeGroupLabel(t *testing.T) {
	fleet := strings.Replace(testrender.NodeGroupsFleet, `volumeSizeGiB: 50,`, `volumeSizeGiB: 50, zoneGroups: true,`, 1)
	res, nodes := launched(t, testfleet.Write(t, fleet))
	seen := map[string]bool{}
	for i := range nodes {
		n := &nodes[i]
		if n.Labels["gpufleet.dev/pool"] != "cpu" {
			continue
		}
		delete(n.Labels, "gpufleet.dev/pool")
		group := "cpu-" + n.Labels["topology.kubernetes.io/zone"]
		n.Labels["eks.amazonaws.com/nodegroup"] = group
		seen[group] = true
	}
	if len(seen) != 2 {
		t.Fatalf("the cpu pool's nodes are in groups %v, want one per zone of 2", seen)
	}
	rep, err := res.Drift(nodes)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Unmatched) != 0 {
		t.Errorf("unmatched %v", rep.Unmatched)
	}
	for _, f := range rep.Findings {
		if f.Kind != drift.MissingLabel || f.Pool != "cpu" {
			t.Errorf("finding %+v, want only the cpu pool's missing pool label", f)
		}
	}
}

func scaleMemory(n *corev1.Node, by float64) {
	m := n.Status.Allocatable[corev1.ResourceMemory]
	n.Status.Allocatable[corev1.ResourceMemory] = *resource.NewQuantity(int64(float64(m.Value())*by), resource.BinarySI)
}

// Findings come sorted by pool (no pool last), node and kind, and the
// pools by name, whatever order the nodes are listed in.
func TestSorted(t *testing.T) {
	res, nodes := launched(t, testfleet.Write(t, testrender.NodeGroupsFleet))
	for i := range nodes {
		delete(nodes[i].Labels, "node.kubernetes.io/instance-type")
	}
	nodes[0].Labels = nil
	slices.Reverse(nodes)
	rep, _ := res.Drift(nodes)
	slices.Reverse(nodes)
	again, _ := res.Drift(nodes)
	if len(rep.Findings) != len(nodes) || !slices.Equal(rep.Findings, again.Findings) {
		t.Fatalf("order depends on input: %+v\n%+v", rep.Findings, again.Findings)
	}
	if last := rep.Findings[len(rep.Findings)-1]; last.Kind != drift.NoPool {
		t.Errorf("NoPool not last: %+v", last)
	}
	if !slices.IsSortedFunc(rep.Pools, func(a, b drift.Pool) int { return strings.Compare(a.Name, b.Name) }) {
		t.Errorf("pools not sorted: %+v", rep.Pools)
	}
}

// A cluster far past Kubernetes' 5,000-node limit compares in linear time.
func TestManyNodes(t *testing.T) {
	res, clean := launched(t, testfleet.Write(t, testrender.NodeGroupsFleet))
	var nodes []corev1.Node
	for i := 0; len(nodes) < 20000; i++ {
		n := *clean[i%len(clean)].DeepCopy()
		n.Name = fmt.Sprintf("%s-%d", n.Name, i)
		nodes = append(nodes, n)
	}
	start := time.Now()
	rep, err := res.Drift(nodes)
	if err != nil || len(rep.Findings) != 0 || rep.Nodes() != len(nodes) {
		t.Fatalf("%v, %d findings, %d nodes", err, len(rep.Findings), rep.Nodes())
	}
	t.Logf("%d nodes in %v", len(nodes), time.Since(start))
}
