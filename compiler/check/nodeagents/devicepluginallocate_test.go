package nodeagents_test

import (
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check/nodeagents"
	"github.com/gpufleet/gpufleet/internal/checkcells"
)

// allocateFleet shares 4-GPU L4 nodes through MPS and time-slicing, beside
// whole GPUs, with classes asking for 1, 2 and 4 GPUs.
const allocateFleet = `package fleet
cluster: {provider: "eks", name: "pa", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
priorities: p: value: 1
pools: {
	"mps": {instanceTypes: ["g6.12xlarge"], sharing: {strategy: "mps", replicas: 2}, size: {min: 0, max: 2}}
	"mps-karpenter": {instanceTypes: ["g6.12xlarge"], provisioner: "karpenter", sharing: {strategy: "mps", replicas: 2}, size: {min: 0, max: 2}}
	"ts": {instanceTypes: ["g6.12xlarge"], sharing: {strategy: "time-slicing", replicas: 2}, size: {min: 0, max: 2}}
	"whole": {instanceTypes: ["g6.12xlarge"], size: {min: 0, max: 2}}
}
classes: {
	one: {priority: "p", gpu: {count: 1, products: ["L4"], shared: true}}
	two: {priority: "p", gpu: {count: 2, products: ["L4"], shared: true}}
	wide: {priority: "p", gpu: {count: 8, products: ["L4"], shared: true}}
	whole: {priority: "p", gpu: {count: 2, products: ["L4"]}}
}
tenants: t: {namespaces: ["t"], classes: ["one", "two", "wide", "whole"]}
`

func TestDevicePluginAllocate(t *testing.T) {
	checkcells.Check(t, allocateFleet, nodeagents.IDDevicePluginAllocate, []checkcells.Case{
		{"two", "mps", `class two requests 2 nvidia.com/gpu in container main on pool mps, which shares each GPU as 2 MPS replicas: kube-scheduler binds the pod, but the NVIDIA device plugin refuses the allocation ("invalid request: maximum request size for shared resources is 1; found 2")`},
		{"wide", "mps", "found 8"},
		// Karpenter launches the 4-GPU type for 2; the plugin still refuses.
		{"two", "mps-karpenter", "found 2"},
		{"wide", "mps-karpenter", "found 8"},
		{"one", "mps", ""},
		// Time-slicing lets a container take more than one replica.
		{"two", "ts", ""},
		{"wide", "ts", ""},
		{"one", "ts", ""},
		// Whole GPUs are not replicas.
		{"whole", "whole", ""},
	}, 4)
}
