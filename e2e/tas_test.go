package e2e

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
)

// The harness's network-node labels: one layer-1 node per zone, four
// instances under each node of the deepest layer, and fourfold wider
// groups above it.
func TestNetworkLabels(t *testing.T) {
	path := func(layers, k int) string {
		l := networkLabels(layers, nil, "a100-efa", "us-east-2a", k)
		if len(l) != layers {
			t.Fatalf("%d layers: %d labels", layers, len(l))
		}
		var p []string
		for i := 1; i <= layers; i++ {
			p = append(p, l[fmt.Sprintf("%s%d", aws.LabelNetworkNodeLayer, i)])
		}
		return strings.Join(p, "/")
	}
	for _, tc := range []struct {
		layers, k int
		want      string
	}{
		{3, 0, "nn-us-east-2a/nn-us-east-2a-a100-efa-l2-0/nn-us-east-2a-a100-efa-l3-0"},
		{3, 3, "nn-us-east-2a/nn-us-east-2a-a100-efa-l2-0/nn-us-east-2a-a100-efa-l3-0"},
		{3, 4, "nn-us-east-2a/nn-us-east-2a-a100-efa-l2-0/nn-us-east-2a-a100-efa-l3-1"},
		{3, 16, "nn-us-east-2a/nn-us-east-2a-a100-efa-l2-1/nn-us-east-2a-a100-efa-l3-4"},
		{4, 17, "nn-us-east-2a/nn-us-east-2a-a100-efa-l2-0/nn-us-east-2a-a100-efa-l3-1/nn-us-east-2a-a100-efa-l4-4"},
	} {
		if got := path(tc.layers, tc.k); got != tc.want {
			t.Errorf("%d layers, node %d: %s, want %s", tc.layers, tc.k, got, tc.want)
		}
	}
	// A declared layer-3 size of 2: pairs share a layer-3 node, and the
	// layer-2 nodes hold four pairs.
	for k, want := range []string{"l2-0/l3-0", "l2-0/l3-0", "l2-0/l3-1", "l2-0/l3-3", "l2-1/l3-4"} {
		node := []int{0, 1, 2, 7, 8}[k]
		l := networkLabels(3, map[int]int{3: 2}, "g", "z", node)
		got := strings.TrimPrefix(l[aws.LabelNetworkNodeLayer+"2"], "nn-z-g-") + "/" + strings.TrimPrefix(l[aws.LabelNetworkNodeLayer+"3"], "nn-z-g-")
		if got != want {
			t.Errorf("declared layer-3 domains of 2, node %d: %s, want %s", node, got, want)
		}
	}
	if l := networkLabels(0, nil, "cpu", "us-east-2a", 0); len(l) != 0 {
		t.Errorf("a type without network layers got %v", l)
	}
	long := networkLabels(3, nil, strings.Repeat("g", 60), "us-east-2a", 0)[aws.LabelNetworkNodeLayer+"3"]
	if len(long) > 63 || !strings.HasPrefix(long, "nn-") {
		t.Errorf("a long group's value %q", long)
	}
}

// Kueue v1beta2's compressed topology assignment, expanded.
func TestParseTopologyAssignment(t *testing.T) {
	var raw any
	err := yaml.Unmarshal([]byte(`
levels: [topology.k8s.aws/network-node-layer-3, kubernetes.io/hostname]
slices:
- domainCount: 2
  valuesPerLevel:
  - universal: nn-a
  - individual: {prefix: "p4d-", roots: ["0", "1"], suffix: "-x"}
  podCounts: {universal: 1}
- domainCount: 1
  valuesPerLevel:
  - universal: nn-b
  - individual: {roots: [h]}
  podCounts: {individual: [3]}
`), &raw)
	if err != nil {
		t.Fatal(err)
	}
	a, err := parseTopologyAssignment(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := "levels [topology.k8s.aws/network-node-layer-3 kubernetes.io/hostname], 3 domains {nn-a/p4d-0-x: 1, nn-a/p4d-1-x: 1, nn-b/h: 3}"
	if got := a.String(); got != want || a.pods() != 5 {
		t.Errorf("got %s (%d pods), want %s (5)", got, a.pods(), want)
	}
}

// The groups' minSize in the infrastructure files is the checker's
// Standing for every example fleet; and a changed one shows.
func TestStandingAsChecker(t *testing.T) {
	for _, f := range []string{"platform", "llm-serving", "research"} {
		res, err := compiler.Compile([]string{"../fleets/" + f})
		if err != nil {
			t.Fatal(err)
		}
		cl, err := res.Cluster()
		if err != nil {
			t.Fatal(err)
		}
		_, groups, err := readInfra(res.Tree)
		if err != nil {
			t.Fatal(err)
		}
		if d := standingDiff(groups, cl); d != "" {
			t.Errorf("%s: %s", f, d)
		}
		if f != "research" {
			continue
		}
		for _, g := range groups {
			if g.name == "a100-efa" {
				g.min = 0
			}
		}
		if d := standingDiff(groups, cl); !strings.Contains(d, "a100-efa: 0 nodes stand, the checker says 4") {
			t.Errorf("research with a100-efa at min 0: %q", d)
		}
	}
}
