package scheduling

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDSystemLands check.ID = "SystemLands"

// SystemLands requires each workload the tree itself deploys (its second
// scheduler) to fit some pool at max size, as a class must. When every
// pool is tainted (GPU, spot, dedicated and custom taints), the
// scheduler's pod fits no node, and no pod of a class that names its
// profile is ever scheduled. Pools marked system: true are where the
// tree's components go, tolerating their taints.
func SystemLands(cl *sched.Cluster, _ []sched.Row, _ check.Intent) []check.Finding {
	var out []check.Finding
	for i := range cl.System {
		c := &cl.System[i]
		counts := map[string]int{}
		fits := false
		for j := range cl.Pools {
			cell := sched.Evaluate(c, &cl.Pools[j])
			if cell.Fits {
				fits = true
				break
			}
			for _, r := range cell.Reasons {
				counts[r]++
			}
		}
		if fits {
			continue
		}
		out = append(out, check.Finding{Severity: check.Error, Check: IDSystemLands,
			Message: fmt.Sprintf("the tree's own Deployment %s fits no node: 0/%d pools can host it: %s; no pod of a class with a schedulerProfile is ever scheduled: mark a pool whose nodes may run it system: true",
				c.Name, len(cl.Pools), histogram(counts))})
	}
	return out
}
