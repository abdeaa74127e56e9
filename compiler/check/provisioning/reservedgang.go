package provisioning

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDReservedGang check.ID = "ReservedGang"

// A pool whose reservations are all it launches (whenExhausted "none")
// has, in each zone, the reserved instances there: a managed node group's
// launch template targets its reservation, and Karpenter, with capacity
// type "reserved" alone, offers only the instance types and zones its
// reservations still have room in (karpenter-provider-aws v1.15.1
// pkg/providers/instancetype/offering: reserved offerings of
// capacityreservation.Provider, each available while it has instances
// left). A gang runs its pods at once in one zone (its EFA or topology
// traffic does not cross one, and validation keeps such pools' reservations
// in one): one zone's reserved instances must hold it.
const reasonReservedGang = "class %s runs %d pods at once, but pool %s launches only into its reservations, whose instances hold at most %d of them in one zone (%s); the rest stay Pending (Karpenter: \"no instance type has the required offering\"; a managed node group's launch fails once its reservation is full); reserve more in one zone, or on a Karpenter pool set whenExhausted \"on-demand\""

// ReservedGang refuses a gang that the reserved instances of one zone
// of a reservation-only pool it lands on cannot hold.
func ReservedGang(c *sched.Class, w *sched.Row, pools []sched.Pool) []check.Finding {
	if !c.Gang {
		return nil
	}
	var out []check.Finding
	for k, cell := range w.Evaluated {
		p := &pools[w.At[k]]
		if !cell.Fits || len(p.Reserved) == 0 || p.FallsBack {
			continue
		}
		best, where := int64(0), "none of "+cell.Type
		for _, z := range cell.Zones {
			var reserved int64
			for _, r := range p.Reserved {
				if r.Zone == z.Zone && r.InstanceType == cell.Type {
					reserved += int64(r.Count)
				}
			}
			if held := min(reserved, z.Nodes) * z.PodsPerNode; held > best || (best == 0 && reserved > 0) {
				best, where = held, fmt.Sprintf("%s: %d reserved %s, %d pods each", z.Zone, reserved, cell.Type, z.PodsPerNode)
			}
		}
		if best < int64(c.Pods) {
			out = append(out, check.Finding{Severity: check.Error, Check: IDReservedGang, Class: c.Name, Pool: p.Name,
				Message: fmt.Sprintf(reasonReservedGang, c.Name, c.Pods, p.Name, best, where)})
		}
	}
	return out
}
