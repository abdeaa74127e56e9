package eks

import "github.com/gpufleet/gpufleet/compiler/derive"

// group is one managed node group of a pool: the pool's own over all its
// zones, or with zoneGroups one per zone (named <pool>-<zone>, by
// spec.Pool.NodeGroups, which validation holds unique), the pool's
// sizes split over them as an Auto Scaling group balances its zones, the
// remainder to the first listed. cluster-autoscaler then adds a node in
// the zone a pending pod needs, which it cannot choose in a multi-zone
// group.
type group struct {
	name              string
	zones             []string
	min, max, desired int32
}

func groups(p derive.Pool) []group {
	ngs := p.Spec.NodeGroups(p.Name, p.Zones)
	n := int32(len(ngs))
	if n == 0 {
		return nil
	}
	share := func(total int32, i int) int32 {
		s := total / n
		if int32(i) < total%n {
			s++
		}
		return s
	}
	out := make([]group, len(ngs))
	for i, ng := range ngs {
		out[i] = group{ng.Name, ng.Zones, share(p.Spec.Size.Min, i), share(p.Spec.ManagedMax(), i), share(desired(p), i)}
	}
	return out
}
