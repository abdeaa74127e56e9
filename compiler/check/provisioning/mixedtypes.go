package provisioning

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDMixedTypes check.ID = "MixedTypes"

// A managed node group launches its first instance type when it can (an
// on-demand group allocates in priority order), cluster-autoscaler builds
// its scale-from-zero template from one type and requires the others to
// match it in CPU and memory, and a spot group launches whichever type has
// capacity. The checker credits the first type; where the others differ,
// what launches may hold less, or more, than was proved.
const (
	reasonMixedTypes     = "pool %s's node group lists instance types that differ in CPU, memory or GPUs (%s): the checker credits %s, the first, which an on-demand group launches when it can; cluster-autoscaler assumes they are equal: list types of one size"
	reasonMixedTypesSpot = "pool %s's spot node group lists instance types that differ in CPU, memory or GPUs (%s): the checker credits %s, the first, from which cluster-autoscaler builds its template, but the group launches whichever has capacity: list types of one size"
)

// MixedTypes warns of the node groups whose types differ.
func MixedTypes(cl *sched.Cluster, _ []sched.Row, _ check.Intent) []check.Finding {
	var out []check.Finding
	for _, p := range cl.Pools {
		if p.MixedTypes != "" && len(p.Nodes) > 0 {
			reason := reasonMixedTypes
			if p.Spot {
				reason = reasonMixedTypesSpot
			}
			out = append(out, check.Finding{Severity: check.Warning, Check: IDMixedTypes, Pool: p.Name,
				Message: fmt.Sprintf(reason, p.Name, p.MixedTypes, p.Nodes[0].InstanceType)})
		}
	}
	return out
}
