package eks

import "github.com/gpufleet/gpufleet/compiler/derive"

// group is one managed node group of a pool: the pool's own over all its
// zones, or with zoneGroups one per zone (named <pool>-<zone>), the pool's
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
	if !p.Spec.ZoneGroups || len(p.Zones) < 2 {
		return []group{{p.Name, p.Zones, p.Spec.Size.Min, p.Spec.ManagedMax(), desired(p)}}
	}
	n := int32(len(p.Zones))
	share := func(total int32, i int) int32 {
		s := total / n
		if int32(i) < total%n {
			s++
		}
		return s
	}
	out := make([]group, len(p.Zones))
	for i, z := range p.Zones {
		out[i] = group{p.Name + "-" + z, []string{z}, share(p.Spec.Size.Min, i), share(p.Spec.ManagedMax(), i), share(desired(p), i)}
	}
	return out
}
