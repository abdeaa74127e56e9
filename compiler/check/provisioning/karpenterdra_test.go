package provisioning_test

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check/provisioning"
	"github.com/gpufleet/gpufleet/internal/checkcells"
)

// karpenterDRAFleet has L40S DRA pools on Karpenter and a managed node
// group, and a device-plugin pool on Karpenter; %s is the cluster's
// karpenter settings.
const karpenterDRAFleet = `package fleet
cluster: {provider: "eks", name: "kd", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"], %s}
priorities: p: value: 1
pools: {
	"dra-karpenter": {instanceTypes: ["g6e.xlarge"], provisioner: "karpenter", gpuAPI: "dra", size: {min: 0, max: 2}}
	"dra-managed": {instanceTypes: ["g6e.xlarge"], gpuAPI: "dra", size: {min: 0, max: 2}}
	"plugin-karpenter": {instanceTypes: ["g6e.xlarge"], provisioner: "karpenter", size: {min: 0, max: 2}}
}
classes: {
	claims: {priority: "p", gpu: {count: 1, products: ["L40S"], api: "dra"}}
	plugin: {priority: "p", gpu: {count: 1, products: ["L40S"]}}
}
tenants: t: {namespaces: ["t"], classes: ["claims", "plugin"]}
`

func TestKarpenterDRA(t *testing.T) {
	fleet := func(karpenter string) string { return strings.Replace(karpenterDRAFleet, "%s", karpenter, 1) }
	// Karpenter as its chart installs it by default ignores claims.
	checkcells.Check(t, fleet(`karpenter: {}`), provisioning.IDKarpenterDRA, []checkcells.Case{
		{"claims", "dra-karpenter", `Karpenter runs with IGNORE_DRA_REQUESTS (its chart's default): "pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter", so it never launches pool dra-karpenter's nodes for them`},
		// A managed node group's nodes do not wait for Karpenter.
		{"claims", "dra-managed", ""},
		// Pods without claims are Karpenter's as ever.
		{"plugin", "plugin-karpenter", ""},
	}, 1)
	// The spec says Karpenter runs with DRANVIDIAGPU: the tree's values set it.
	checkcells.Check(t, fleet(`karpenter: dra: true`), provisioning.IDKarpenterDRA, []checkcells.Case{
		{"claims", "dra-karpenter", ""},
		{"claims", "dra-managed", ""},
		{"plugin", "plugin-karpenter", ""},
	}, 0)
}
