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

// Pools maps the names a node's labels may carry to pools, for mapping
// many nodes: gpufleet's pool label names a pool, a group label one of a
// pool's node groups or its NodePool (Group.Names: with zoneGroups, a
// group per zone, <pool>-<zone>).
type Pools struct {
	pools  map[string]bool
	groups map[string]string
}

// PoolsOf is the groups' pools and the names of their node groups.
func PoolsOf(groups []Group) Pools {
	s := Pools{pools: make(map[string]bool, len(groups)), groups: make(map[string]string, len(groups))}
	for _, g := range groups {
		s.pools[g.Pool] = true
		s.groups[g.Pool] = g.Pool
		for _, n := range g.Names {
			s.groups[n] = g.Pool
		}
	}
	return s
}

// Of is PoolOf against the set.
func (s Pools) Of(labels map[string]string) (pool, by string) {
	for _, key := range PoolLabels {
		v, ok := labels[key]
		if !ok {
			continue
		}
		if key == keys.LabelPool {
			if s.pools[v] {
				return v, key
			}
		} else if p, ok := s.groups[v]; ok {
			return p, key
		}
	}
	return "", ""
}
