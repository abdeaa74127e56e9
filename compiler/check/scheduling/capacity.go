package scheduling

import (
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

const IDCapacity check.ID = "Capacity"

// Capacity requires all of a Deployment's or StatefulSet's replicas to fit
// at once on the pools it can land on, at their max size: the replicas
// that cannot run stay Pending for ever. A Job's pods end (Gang judges a
// gang), and a queued workload is judged where Kueue pins it (KueueGang,
// KueueDeployment).
func Capacity(c *sched.Class, w *sched.Row, pools []sched.Pool) []check.Finding {
	if c.Kind == keys.KindJob || c.Queued {
		return nil
	}
	return shortfall(c, w, pools, IDCapacity, "%d replicas cannot all run")
}
