package provisioning_test

import (
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check/provisioning"
	"github.com/gpufleet/gpufleet/internal/checkcells"
)

// launchFleet shares 1-GPU and 4-GPU L4 types on Karpenter, managed and
// "both" pools, with classes asking for 1 and 2 shared GPUs.
const launchFleet = `package fleet
cluster: {provider: "eks", name: "kl", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
priorities: p: value: 1
pools: {
	"ts-karpenter": {instanceTypes: ["g6.xlarge"], provisioner: "karpenter", sharing: {strategy: "time-slicing", replicas: 4}, size: {min: 0, max: 2}}
	"mps-karpenter": {instanceTypes: ["g6.xlarge"], provisioner: "karpenter", sharing: {strategy: "mps", replicas: 4}, size: {min: 0, max: 2}}
	"ts-managed": {instanceTypes: ["g6.xlarge"], sharing: {strategy: "time-slicing", replicas: 4}, size: {min: 0, max: 2}}
	"ts-karpenter-4": {instanceTypes: ["g6.12xlarge"], provisioner: "karpenter", sharing: {strategy: "time-slicing", replicas: 4}, size: {min: 0, max: 2}}
	"whole-karpenter": {instanceTypes: ["g6.12xlarge"], provisioner: "karpenter", size: {min: 0, max: 2}}
	"ts-both": {instanceTypes: ["g6.xlarge"], provisioner: "both", sharing: {strategy: "time-slicing", replicas: 4}, size: {min: 1, max: 3}}
}
classes: {
	one: {priority: "p", gpu: {count: 1, products: ["L4"], shared: true}}
	two: {priority: "p", gpu: {count: 2, products: ["L4"], shared: true}}
	whole: {priority: "p", gpu: {count: 2, products: ["L4"]}}
}
tenants: t: {namespaces: ["t"], classes: ["one", "two", "whole"]}
`

func TestKarpenterLaunch(t *testing.T) {
	checkcells.Check(t, launchFleet, provisioning.IDKarpenterLaunch, []checkcells.Case{
		{"two", "ts-karpenter", "requests 2 nvidia.com/gpu per pod, more than the 1 GPU(s) of any of pool ts-karpenter's instance types: the pool shares each GPU as 4 (time-slicing), which Karpenter does not count, so it never launches a node for these pods, which stay Pending"},
		// A "both" pool's managed nodes hold them; Karpenter's share never comes.
		{"two", "ts-both", "so it never launches its 2 of the pool's 3 nodes for these pods, which only the managed node group's nodes hold"},
		{"one", "ts-both", ""},
		{"two", "mps-karpenter", "shares each GPU as 4 (MPS)"},
		// A managed node group's nodes do not wait for Karpenter.
		{"two", "ts-managed", ""},
		// g6.12xlarge has 4 GPUs: Karpenter launches it for 2.
		{"two", "ts-karpenter-4", ""},
		{"one", "ts-karpenter", ""},
		{"one", "mps-karpenter", ""},
		// Whole GPUs are what Karpenter counts.
		{"whole", "whole-karpenter", ""},
	}, 3)
}
