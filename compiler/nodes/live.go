package nodes

import (
	"github.com/gpufleet/gpufleet/compiler/cloud"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/wire/karpenter"
)

// PoolLabels name a live node's pool, in the order PoolOf tries them:
// gpufleet's own, then the managed node group's (the clouds' GroupLabels)
// and the Karpenter NodePool's, which gpufleet names after the pool.
var PoolLabels = append(append([]string{keys.LabelPool}, cloud.GroupLabels()...), karpenter.LabelKarpenterNodePool)

// PoolOf is the pool of groups a live node with these labels belongs to,
// and the label that says so; "" if no label names one of the pools.
func PoolOf(labels map[string]string, groups []Group) (pool, by string) {
	return PoolsOf(groups).Of(labels)
}

// Pools is a set of pool names, for mapping many nodes.
type Pools map[string]bool

// PoolsOf is the set of the groups' pools.
func PoolsOf(groups []Group) Pools {
	s := make(Pools, len(groups))
	for _, g := range groups {
		s[g.Pool] = true
	}
	return s
}

// Of is PoolOf against the set.
func (s Pools) Of(labels map[string]string) (pool, by string) {
	for _, key := range PoolLabels {
		if v, ok := labels[key]; ok && s[v] {
			return v, key
		}
	}
	return "", ""
}
