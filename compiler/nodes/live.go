package nodes

import (
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/wire/karpenter"
)

// PoolLabels name a live node's pool, in the order PoolOf tries them:
// gpufleet's own, then the managed node group's (eksctl's, EKS's) and the
// Karpenter NodePool's, which gpufleet names after the pool.
var PoolLabels = []string{keys.LabelPool, keys.LabelEksctlNodeGroup, keys.LabelEKSNodeGroup, karpenter.LabelKarpenterNodePool}

// PoolOf is the pool of groups a live node with these labels belongs to,
// and the label that says so; "" if no label names one of the pools.
func PoolOf(labels map[string]string, groups []Group) (pool, by string) {
	for _, key := range PoolLabels {
		v, ok := labels[key]
		if !ok {
			continue
		}
		for _, g := range groups {
			if g.Pool == v {
				return v, key
			}
		}
	}
	return "", ""
}
