package check_test

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check/readback"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/nodegroup"
	"github.com/gpufleet/gpufleet/compiler/nodegroup/eks"
	"github.com/gpufleet/gpufleet/compiler/nodegroup/karpenter"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// karpenterFleet has two karpenter-only pools, which eksctl.yaml leaves
// out, and a pool on both provisioners.
const karpenterFleet = `package fleet
cluster: {provider: "eks", name: "kp", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
priorities: p: value: 1
pools: {
	"h100": {instanceTypes: ["p5.48xlarge"], provisioner: "karpenter", zones: ["us-east-1a"], size: {min: 0, max: 2}}
	"l4-spot": {instanceTypes: ["g6.xlarge"], capacity: "spot", provisioner: "karpenter", size: {min: 0, max: 4}}
	"cpu": {instanceTypes: ["m7i.large"], provisioner: "both", size: {min: 1, max: 3}}
}
classes: {
	web: {priority: "p", resources: cpu: "500m"}
	train: {priority: "p", kind: "Job", gang: 4, gpu: {count: 8, products: ["H100"]}}
	infer: {priority: "p", gpu: {count: 1, products: ["L4"]}, capacity: "spot"}
}
tenants: t: {namespaces: ["t"], classes: ["web", "train", "infer"]}
`

func compileKarpenter(t *testing.T) *compiler.Result {
	t.Helper()
	f := testfleet.Write(t, karpenterFleet)
	res, err := compiler.Compile([]string{f})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestKarpenterOnlyPoolsChecked proves that pools only Karpenter provisions
// reach the checker from their NodePools, with their labels, taints, zones
// and max size, and get verdicts both ways.
func TestKarpenterOnlyPoolsChecked(t *testing.T) {
	res := compileKarpenter(t)
	eks := string(res.Tree[eks.EksctlPath])
	if strings.Contains(eks, "name: h100") || strings.Contains(eks, "name: l4-spot") || !strings.Contains(eks, "name: cpu") {
		t.Fatalf("eksctl.yaml should hold cpu alone:\n%s", eks)
	}
	cl, err := res.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]sched.Pool{}
	for _, p := range cl.Pools {
		got[p.Name] = p
	}
	h100, spot := got["h100"], got["l4-spot"]
	if len(got) != 3 || h100.MaxNodes != 2 || h100.Spot || len(h100.Nodes) != 1 || !spot.Spot || spot.MaxNodes != 4 || len(spot.Nodes) != 2 {
		t.Fatalf("pools read back: %+v", got)
	}
	// The both pool's managed baseline (1) and Karpenter's share (2) add
	// up to its max, as the two files say.
	if !strings.Contains(eks, "maxSize: 1") || !strings.Contains(string(res.Tree[karpenter.Path]), `gpufleet.dev/max-nodes: "2"`) || got["cpu"].MaxNodes != 3 {
		t.Errorf("both pool cpu: max %d from eksctl.yaml and karpenter.yaml, want 1 + 2 = 3", got["cpu"].MaxNodes)
	}
	n := h100.Nodes[0]
	for k, v := range map[string]string{"gpufleet.dev/gpu-product": "H100", "karpenter.sh/nodepool": "h100",
		"karpenter.sh/capacity-type": "on-demand", "topology.kubernetes.io/zone": "us-east-1a", "node.kubernetes.io/instance-type": "p5.48xlarge"} {
		if n.Labels[k] != v {
			t.Errorf("h100 node label %s = %q, want %q", k, n.Labels[k], v)
		}
	}
	if len(n.Spec.Taints) != 1 || n.Spec.Taints[0].Key != "nvidia.com/gpu" {
		t.Errorf("h100 node taints %v", n.Spec.Taints)
	}

	rep := res.Report
	for _, tc := range []struct {
		class, pool string
		fits        bool
		reason      string
	}{
		{"train", "h100", true, ""},
		{"infer", "l4-spot", true, ""},
		{"web", "cpu", true, ""},
		{"web", "l4-spot", false, "untolerated taint"},
		{"infer", "h100", false, "node affinity"},
	} {
		c := rep.Cell(tc.class, tc.pool)
		if c == nil {
			t.Errorf("no verdict for %s on %s", tc.class, tc.pool)
			continue
		}
		if c.Fits != tc.fits || !strings.Contains(strings.Join(c.Reasons, "; "), tc.reason) {
			t.Errorf("%s on %s: fits %v %v; want %v %q", tc.class, tc.pool, c.Fits, c.Reasons, tc.fits, tc.reason)
		}
	}
	// Two p5.48xlarge nodes hold two 8-GPU pods, not a gang of four: the
	// queued gang's quota, split by the pool's GPUs, is 16 of its 32.
	var gang bool
	for _, f := range rep.Findings {
		gang = gang || f.Check == "KueueQuota" && f.Class == "train" && strings.Contains(f.Message, "in flavor h100") && strings.Contains(f.Message, "maximum capacity (16)")
	}
	if !gang {
		t.Errorf("no KueueQuota finding for train on the karpenter-only h100 pool: %v", rep.Findings)
	}
}

// TestKarpenterReaderCanFail edits karpenter.yaml the ways a hand-edit or a
// generator bug would, and requires readback.FromTree to refuse each.
func TestKarpenterReaderCanFail(t *testing.T) {
	res := compileKarpenter(t)
	kp := string(res.Tree[karpenter.Path])
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"both pool diverges", "gpufleet.dev/pool: cpu", "gpufleet.dev/pool: cpu2", "eksctl.yaml and nodegroups/karpenter.yaml disagree: labels"},
		{"max nodes missing", `gpufleet.dev/max-nodes: "2"`, `example.com/x: "2"`, "annotation gpufleet.dev/max-nodes"},
		{"two capacity types", "        - spot\n", "        - spot\n        - on-demand\n", `want one capacity type, or "reserved" with "on-demand"`},
		{"reserved without its record", "        - spot\n", "        - reserved\n", `capacity type "reserved" and annotation gpufleet.dev/reserved disagree`},
		{"NotIn requirement", "operator: In", "operator: NotIn", "the checker reads only In"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(kp, tc.from) {
				t.Fatalf("karpenter.yaml has no %q", tc.from)
			}
			tr := tree.Tree{}
			for p, b := range res.Tree {
				tr[p] = b
			}
			tr[karpenter.Path] = []byte(strings.Replace(kp, tc.from, tc.to, 1))
			_, err := readBack(tr, res.Catalog)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// readBack reads a tree as the pipeline does: the provisioners' node groups,
// then the cluster.
func readBack(tr tree.Tree, cat catalog.Catalog) (*sched.Cluster, error) {
	groups, err := nodegroup.NodeGroups(tree.Bytes(tr))
	if err != nil {
		return nil, err
	}
	return readback.FromTree(tree.Bytes(tr), groups, cat)
}
