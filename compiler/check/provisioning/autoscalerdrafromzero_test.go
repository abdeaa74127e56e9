package provisioning_test

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check/provisioning"
	"github.com/gpufleet/gpufleet/internal/checkcells"
)

// draFromZeroFleet has L40S DRA pools that cluster-autoscaler scales to
// zero and pools that keep a node standing, a Karpenter DRA pool and a
// device-plugin pool at zero; %s is the cluster's version.
const draFromZeroFleet = `package fleet
cluster: {provider: "eks", name: "fz", region: "us-east-1", version: "%s", zones: ["us-east-1a", "us-east-1b", "us-east-1c"], karpenter: dra: true}
priorities: p: value: 1
pools: {
	"at-zero": {instanceTypes: ["g6e.xlarge"], zones: ["us-east-1a"], gpuAPI: "dra", size: {min: 0, max: 2}}
	"stands": {instanceTypes: ["g6e.xlarge"], zones: ["us-east-1a"], gpuAPI: "dra", size: {min: 1, max: 2}}
	"desired-only": {instanceTypes: ["g6e.xlarge"], zones: ["us-east-1a"], gpuAPI: "dra", size: {min: 0, max: 2, desired: 1}}
	"multi-zone": {instanceTypes: ["g6e.xlarge"], zones: ["us-east-1a", "us-east-1b"], gpuAPI: "dra", size: {min: 0, max: 2}}
	"zone-groups": {instanceTypes: ["g6e.xlarge"], gpuAPI: "dra", zoneGroups: true, size: {min: 1, max: 3}}
	"zone-groups-stand": {instanceTypes: ["g6e.xlarge"], gpuAPI: "dra", zoneGroups: true, size: {min: 3, max: 3}}
	"karpenter": {instanceTypes: ["g6e.xlarge"], provisioner: "karpenter", gpuAPI: "dra", size: {min: 0, max: 2}}
	"plugin": {instanceTypes: ["g6e.xlarge"], size: {min: 0, max: 2}}
}
classes: {
	claims: {priority: "p", gpu: {count: 1, products: ["L40S"], api: "dra"}}
	plugin: {priority: "p", gpu: {count: 1, products: ["L40S"]}}
}
tenants: t: {namespaces: ["t"], classes: ["claims", "plugin"]}
`

func TestAutoscalerDRAFromZero(t *testing.T) {
	fleet := func(version string) string { return strings.Replace(draFromZeroFleet, "%s", version, 1) }
	checkcells.Check(t, fleet("1.36"), provisioning.IDAutoscalerDRAFromZero, []checkcells.Case{
		// One group, min 0: its next node is the Auto Scaling group's
		// template, with no ResourceSlices.
		{"claims", "at-zero", `class claims's pods claim DRA devices, and pool at-zero's node group at-zero scales down to no node (min 0): cluster-autoscaler (which handles DRA always from 1.35) then builds the next node from the Auto Scaling group's template, with no ResourceSlices, where kube-scheduler's DynamicResources filter says "cannot allocate all claims", so it never adds one for them ("pod didn't trigger scale-up") and they stay Pending; keep a node standing in it (min: 1), or use provisioner "karpenter" with cluster.karpenter.dra`},
		// A standing node: cluster-autoscaler templates the next from it,
		// slices and all.
		{"claims", "stands", ""},
		// A desired size stands only until cluster-autoscaler scales the
		// idle node down to min.
		{"claims", "desired-only", "node group desired-only scales down to no node (min 0)"},
		// One group over two zones needs one node, wherever it runs.
		{"claims", "multi-zone", "keep a node standing in it (min: 1)"},
		// zoneGroups gives min 1 to the first zone's group: the other two
		// scale to zero.
		{"claims", "zone-groups", "pool zone-groups's node groups zone-groups-us-east-1b, zone-groups-us-east-1c scale down to no node (min 0)"},
		{"claims", "zone-groups", "keep a node standing in each (zoneGroups splits min over the zones' groups, the remainder to the first: min: 3)"},
		{"claims", "zone-groups-stand", ""},
		// Karpenter, not cluster-autoscaler, launches for claims there.
		{"claims", "karpenter", ""},
		// The device plugin's GPUs are on the template (its tags), not in
		// ResourceSlices.
		{"plugin", "plugin", ""},
	}, 4)
	// cluster-autoscaler 1.34 handles no DRA objects unless told to.
	checkcells.Check(t, fleet("1.34"), provisioning.IDAutoscalerDRAFromZero, []checkcells.Case{
		{"claims", "at-zero", ""},
		{"claims", "zone-groups", ""},
	}, 0)
}
