package scheduling

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDInterPodAffinity check.ID = "InterPodAffinity"

// InterPodAffinity checks required anti-affinity of a class against its own
// pods: one pod per hostname means replicas cannot exceed the nodes of the
// pools it fits; one per zone, the zones they span. A Job that runs in
// waves needs one; a queued workload is judged where Kueue pins it.
func InterPodAffinity(c *sched.Class, w *sched.Row, _ []sched.Pool) []check.Finding {
	a := c.Pod.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil || c.Queued {
		return nil
	}
	var out []check.Finding
	for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		limit, unit := sched.AntiAffinityLimit(c, term, w)
		if limit > 0 && int64(c.Need()) > limit {
			out = append(out, check.Finding{Severity: check.Error, Check: IDInterPodAffinity, Class: c.Name,
				Message: fmt.Sprintf("%d pods with required anti-affinity on %s need as many %s, the pools that fit have %d: %s",
					c.Pods, term.TopologyKey, unit, limit, sched.ErrReasonAntiAffinity)})
		}
	}
	return out
}
