package karpenter_test

import (
	"testing"

	"github.com/gpufleet/gpufleet/compiler/nodegroup/karpenter"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// A NodePool's group is priced in its zones' region, the cluster's, a
// Local Zone's too: Karpenter launches no type it has no price for there.
func TestPriceRegion(t *testing.T) {
	f := renderFleet(t, testfleet.Write(t, `package fleet
cluster: {provider: "eks", name: "pr", region: "us-west-2", version: "1.36", zones: ["us-west-2-lax-1a", "us-west-2b"]}
priorities: p: value: 1
pools: {
	lax: {instanceTypes: ["m7i.large"], provisioner: "karpenter", zones: ["us-west-2-lax-1a"], size: {min: 0, max: 2}}
	b: {instanceTypes: ["m7i.large"], provisioner: "karpenter", zones: ["us-west-2b"], size: {min: 0, max: 2}}
}
classes: web: priority: "p"
tenants: t: {namespaces: ["t"], classes: ["web"]}
`))
	groups, err := karpenter.Provisioner{}.NodeGroups(tree.Typed{Tree: f.Tree, Objects: f.Objects})
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 {
		t.Fatalf("%d groups, want 2", len(groups))
	}
	for _, g := range groups {
		if g.PriceRegion != "us-west-2" {
			t.Errorf("pool %s (zones %v): price region %q, want us-west-2", g.Pool, g.Zones, g.PriceRegion)
		}
	}
}
