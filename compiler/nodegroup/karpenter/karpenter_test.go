package karpenter_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/nodegroup/eks"
	"github.com/gpufleet/gpufleet/compiler/nodegroup/karpenter"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/eksctl"
	wire "github.com/gpufleet/gpufleet/compiler/wire/karpenter"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/testfleet"
	"github.com/gpufleet/gpufleet/internal/testrender"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// karpenterFleet exercises what the example fleets do not: karpenter-only
// pools, Bottlerocket, a custom role, a pool dedicated to a Job class, a
// user label and a taint without value.
const karpenterFleet = `package fleet
cluster: {provider: "eks", name: "kp", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b", "us-east-1c"],
	karpenter: role: "custom-node-role"}
priorities: p: value: 1
pools: {
	"l4-spot": {instanceTypes: ["g6.xlarge", "g6.12xlarge"], capacity: "spot", provisioner: "karpenter", size: {min: 0, max: 6},
		labels: "example.com/team": "ml", taints: [{key: "example.com/batch", effect: "NoSchedule"}]}
	"h100-train": {instanceTypes: ["p5.48xlarge"], provisioner: "karpenter", amiFamily: "Bottlerocket", zones: ["us-east-1a"],
		size: {min: 0, max: 2}, dedicatedTo: ["train"]}
	"cpu": {instanceTypes: ["m7i.large", "m7i.2xlarge"], provisioner: "both", volumeSizeGiB: 50, size: {min: 1, max: 3}, expireAfter: "168h30m"}
	"cpu-managed": {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}}
}
classes: {
	web: priority: "p"
	train: {priority: "p", kind: "Job", gang: 2, gpu: {count: 8, products: ["H100"]}}
}
tenants: t: {namespaces: ["t"], classes: ["web", "train"]}
`

// karpenterValidators loads the core and AWS-provider NodePool CRDs (one
// GroupVersionKind, so two validators) and EC2NodeClass's. Missing CRDs fail.
func karpenterValidators(t *testing.T) (core, aws, nodeClass *crdtest.Validator) {
	t.Helper()
	var vs [3]*crdtest.Validator
	for i, src := range []struct {
		m    upstream.Module
		file string
	}{{upstream.Karpenter, upstream.NodePoolCRD}, {upstream.KarpenterAWS, upstream.NodePoolCRD}, {upstream.KarpenterAWS, upstream.EC2NodeClassCRD}} {
		v, err := crdtest.Load(src.m, src.file)
		if err != nil {
			t.Fatal(err)
		}
		vs[i] = v
	}
	return vs[0], vs[1], vs[2]
}

func karpenterDocs(b []byte) [][]byte {
	var out [][]byte
	for _, d := range bytes.Split(bytes.TrimPrefix(b, []byte(tree.Header)), []byte("\n---\n")) {
		if len(bytes.TrimSpace(d)) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// crdErrors returns every error the validators report for doc.
func crdErrors(t *testing.T, doc []byte, vs ...*crdtest.Validator) []string {
	t.Helper()
	var msgs []string
	for _, v := range vs {
		errs, err := v.Validate(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
	}
	return msgs
}

// TestKarpenterCRDs validates every NodePool and EC2NodeClass of every
// fleet against Karpenter's CRDs, CEL rules included, and checks that each
// NodePool says what its derived pool says.
func TestKarpenterCRDs(t *testing.T) {
	core, aws, nodeClass := karpenterValidators(t)
	fleets := renderedFleets(t)
	extra := testfleet.Write(t, karpenterFleet)
	fleets["karpenter-test"] = renderFleet(t, extra)
	for _, name := range []string{"karpenter-test", "llm-serving", "platform"} {
		if _, ok := fleets[name].Tree[karpenter.Path]; !ok {
			t.Errorf("%s: no %s", name, karpenter.Path)
		}
	}
	for name, f := range fleets {
		var pools, classes int
		nodeClasses := map[string]bool{}
		for _, doc := range karpenterDocs(f.Tree[karpenter.Path]) {
			var obj struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			}
			if err := yaml.Unmarshal(doc, &obj); err != nil {
				t.Fatal(err)
			}
			switch obj.Kind {
			case "NodePool":
				pools++
				for _, e := range crdErrors(t, doc, core, aws) {
					t.Errorf("%s: NodePool %s: %s", name, obj.Metadata.Name, e)
				}
				var np wire.NodePool
				if err := yaml.UnmarshalStrict(doc, &np); err != nil {
					t.Fatal(err)
				}
				checkNodePool(t, f.D, &np)
				if !nodeClasses[np.Spec.Template.Spec.NodeClassRef.Name] {
					t.Errorf("%s: NodePool %s names EC2NodeClass %s, not defined before it", name, np.Name, np.Spec.Template.Spec.NodeClassRef.Name)
				}
			case "EC2NodeClass":
				classes++
				nodeClasses[obj.Metadata.Name] = true
				for _, e := range crdErrors(t, doc, nodeClass) {
					t.Errorf("%s: EC2NodeClass %s: %s", name, obj.Metadata.Name, e)
				}
			default:
				t.Errorf("%s: unexpected %s in %s", name, obj.Kind, karpenter.Path)
			}
		}
		want := 0
		for _, p := range f.D.Pools {
			if p.Spec.HasNodePool() {
				want++
			}
		}
		if pools != want {
			t.Errorf("%s: %d NodePools, want %d", name, pools, want)
		}
		checkNodeGroupsSkipKarpenter(t, name, f)
		t.Logf("%s: validated %d NodePools (core and AWS CRDs) and %d EC2NodeClasses", name, pools, classes)
	}
}

// checkNodePool compares a NodePool with its derived pool, computing the
// limits here from the catalog rather than with the renderer's helper.
func checkNodePool(t *testing.T, d *derive.Fleet, np *wire.NodePool) {
	t.Helper()
	p := d.Pool(np.Name)
	capacity := []string{"on-demand"}
	switch {
	case p.Spec.Capacity == "spot":
		capacity = []string{"spot"}
	case p.Spec.FallsBack():
		capacity = []string{"reserved", "on-demand"}
	case p.Spec.IsReserved():
		capacity = []string{"reserved"}
	}
	want := []corev1.NodeSelectorRequirement{
		{Key: "node.kubernetes.io/instance-type", Operator: "In", Values: p.Spec.InstanceTypes},
		{Key: "karpenter.sh/capacity-type", Operator: "In", Values: capacity},
		{Key: "topology.kubernetes.io/zone", Operator: "In", Values: p.Zones},
	}
	tpl := np.Spec.Template
	if diff := cmp.Diff(want, tpl.Spec.Requirements); diff != "" {
		t.Errorf("%s: requirements (-want +got):\n%s", np.Name, diff)
	}
	if diff := cmp.Diff(p.NodeLabels(), tpl.Metadata.Labels); diff != "" {
		t.Errorf("%s: labels (-want +got):\n%s", np.Name, diff)
	}
	if diff := cmp.Diff(p.Taints, tpl.Spec.Taints); diff != "" {
		t.Errorf("%s: taints (-want +got):\n%s", np.Name, diff)
	}
	if got := np.Annotations["gpufleet.dev/max-nodes"]; got != strconv.Itoa(int(p.Spec.KarpenterMax())) {
		t.Errorf("%s: max-nodes annotation %q, want %d", np.Name, got, p.Spec.KarpenterMax())
	}
	var cpu, mem, gpu int64
	for _, in := range p.Instances {
		cpu, mem = max(cpu, in.VCPU), max(mem, int64(in.MemoryGiB))
		if in.GPU != nil {
			gpu = max(gpu, in.GPU.Count)
		}
	}
	n := int64(p.Spec.KarpenterMax())
	for r, want := range map[corev1.ResourceName]int64{"cpu": cpu * n, "memory": mem * n << 30, "nvidia.com/gpu": gpu * n} {
		got, ok := np.Spec.Limits[r]
		if want == 0 && !ok {
			continue
		}
		if got.Value() != want {
			t.Errorf("%s: limits.%s = %s, want %d", np.Name, r, got.String(), want)
		}
	}
	policy := np.Spec.Disruption.ConsolidationPolicy
	if capacity[0] == "spot" && (policy != "WhenEmptyOrUnderutilized" || np.Spec.Weight <= 40) {
		t.Errorf("%s: spot pool: %s, weight %d; want WhenEmptyOrUnderutilized above every on-demand pool", np.Name, policy, np.Spec.Weight)
	}
	if capacity[0] == "reserved" && np.Spec.Weight <= 40+20+10 {
		t.Errorf("%s: reserved pool: weight %d; want it above every pool that is not (its instances are paid for)", np.Name, np.Spec.Weight)
	}
	if capacity[0] == "on-demand" && len(p.Spec.DedicatedTo) == 0 && (policy != "WhenEmpty" || len(np.Spec.Disruption.Budgets) == 0 || np.Spec.Weight > 40) {
		t.Errorf("%s: shared on-demand pool: %s, budgets %v, weight %d", np.Name, policy, np.Spec.Disruption.Budgets, np.Spec.Weight)
	}
}

// checkNodeGroupsSkipKarpenter requires eksctl and Terraform to carry
// exactly the pools with a managed node group.
func checkNodeGroupsSkipKarpenter(t *testing.T, name string, f testrender.Fleet) {
	t.Helper()
	var want []string
	for _, p := range f.D.Pools {
		if p.Spec.HasNodeGroup() {
			want = append(want, p.Name)
		}
	}
	var cfg eksctl.ClusterConfig
	if err := yaml.UnmarshalStrict(f.Tree[eks.EksctlPath], &cfg); err != nil {
		t.Fatal(err)
	}
	var tf struct {
		Groups map[string]json.RawMessage `json:"eks_managed_node_groups"`
	}
	if err := json.Unmarshal(f.Tree[eks.TerraformPath], &tf); err != nil {
		t.Fatal(err)
	}
	// A pool with zoneGroups has a group per zone; the pool label names
	// the pool.
	var got []string
	for _, ng := range cfg.ManagedNodeGroups {
		got = append(got, ng.Labels["gpufleet.dev/pool"])
	}
	got = slices.Compact(got)
	var tfGot []string
	for _, g := range slices.Sorted(maps.Keys(tf.Groups)) {
		var ng struct {
			Labels map[string]string `json:"labels"`
		}
		if err := json.Unmarshal(tf.Groups[g], &ng); err != nil {
			t.Fatal(err)
		}
		tfGot = append(tfGot, ng.Labels["gpufleet.dev/pool"])
	}
	slices.Sort(tfGot)
	tfGot = slices.Compact(tfGot)
	if !slices.Equal(got, want) || !slices.Equal(tfGot, want) {
		t.Errorf("%s: eksctl groups %v, Terraform %v; want %v", name, got, tfGot, want)
	}
}

// at walks nested maps.
func at(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		m = m[k].(map[string]any)
	}
	return m
}
