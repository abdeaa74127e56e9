package e2e

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/nodegroup/eks"
)

// TestInfraWithinMax proves the bound on a "both" pool can fail: the
// example's h100-serve keeps 3 nodes managed and lets Karpenter launch 9,
// and a managed group sized to the whole max would launch 21.
func TestInfraWithinMax(t *testing.T) {
	res, err := compiler.Compile([]string{"../fleets/llm-serving"})
	if err != nil {
		t.Fatal(err)
	}
	_, groups, err := readInfra(res.Tree)
	if err != nil {
		t.Fatal(err)
	}
	if d := overMax(groups, res.Fleet.Spec.Pools); d != "" {
		t.Fatalf("as built: %s", d)
	}
	raw := string(res.Tree[eks.EksctlPath])
	i := strings.Index(raw, "name: h100-serve")
	j := strings.LastIndex(raw[:i], "maxSize: 3")
	if i < 0 || j < 0 {
		t.Fatal("eksctl.yaml has no h100-serve group with maxSize 3")
	}
	res.Tree[eks.EksctlPath] = []byte(raw[:j] + "maxSize: 12" + raw[j+len("maxSize: 3"):])
	if _, groups, err = readInfra(res.Tree); err != nil {
		t.Fatal(err)
	}
	if d := overMax(groups, res.Fleet.Spec.Pools); !strings.Contains(d, "h100-serve: 21 nodes at most, spec max 12") {
		t.Errorf("a managed group at the pool's max: got %q", d)
	}
}
