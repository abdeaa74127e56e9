package check

import (
	"strconv"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// PoolInfo is what a pool is, as its synthesised nodes say: the GPU
// product its nodes carry (the gpu-product label), whether its capacity is
// spot, its instance types, each with the GPUs a node of it has (the
// gpu-count label), and its size: Min the nodes that stand with no pod
// pending (the group's min size), Max its max size. The report's page
// heads its columns with it.
type PoolInfo struct {
	Pool    string     `json:"pool"`
	Product string     `json:"product,omitempty"`
	Spot    bool       `json:"spot"`
	Types   []PoolType `json:"types"`
	Min     int32      `json:"min"`
	Max     int32      `json:"max"`
}

// PoolType is one of a pool's instance types and its GPUs per node.
type PoolType struct {
	Type string `json:"type"`
	GPUs int64  `json:"gpus"`
}

// PoolInfos is each pool's PoolInfo, in the cluster's pool order.
func PoolInfos(cl *sched.Cluster) []PoolInfo {
	out := make([]PoolInfo, len(cl.Pools))
	for i := range cl.Pools {
		p := &cl.Pools[i]
		info := PoolInfo{Pool: p.Name, Spot: p.Spot, Types: []PoolType{}, Min: p.Standing, Max: p.MaxNodes}
		seen := map[string]bool{}
		for _, n := range p.Nodes {
			if n.Node == nil || seen[n.InstanceType] {
				continue
			}
			seen[n.InstanceType] = true
			gpus, _ := strconv.ParseInt(n.Labels[keys.LabelGPUCount], 10, 64)
			info.Types = append(info.Types, PoolType{Type: n.InstanceType, GPUs: gpus})
			if info.Product == "" {
				info.Product = n.Labels[keys.LabelGPUProduct]
			}
		}
		out[i] = info
	}
	return out
}
