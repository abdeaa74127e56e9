package scheduling

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDPodTopologySpread check.ID = "PodTopologySpread"

// PodTopologySpread places the class's pods one by one under each
// DoNotSchedule constraint on its own pods. Domains are counted the
// scheduler's way: nodes passing node affinity (nodeAffinityPolicy Honor,
// the default) whatever their taints (nodeTaintsPolicy Ignore, the
// default), so a zone the pod matches but can never enter holds the global
// minimum at zero and caps every other zone at maxSkew. A Job that runs in
// waves needs one pod placed; a queued workload is judged where Kueue pins
// it, whose nodeSelector leaves only its pool's domains.
func PodTopologySpread(c *sched.Class, w *sched.Row, pools []sched.Pool) []check.Finding {
	if c.Queued {
		return nil
	}
	var out []check.Finding
	hard := sched.HardSpreads(c)
	for _, tsc := range hard {
		placed, described := sched.SpreadPlaced(c, tsc, w, pools)
		if placed >= int64(c.Need()) {
			continue
		}
		out = append(out, check.Finding{Severity: check.Error, Check: IDPodTopologySpread, Class: c.Name,
			Message: fmt.Sprintf("only %d of %d pods can be placed under maxSkew %d on %s over %s: %s",
				placed, c.Pods, tsc.MaxSkew, tsc.TopologyKey, described, sched.ErrReasonSpread)})
	}
	if len(out) > 0 {
		return out
	}
	return jointSpread(c, hard, w, pools)
}

// jointSpread places the class's pods under all its DoNotSchedule spread
// constraints at once. Each constraint alone may hold every pod while
// together they do not: with a zone and a host spread, a zone of one node
// cannot pass one pod until every host has one, and the zone of many
// nodes has then gone past maxSkew. kube-scheduler checks every
// constraint for every pod, so the checker places them jointly: pod by
// pod on the least-loaded zone, then node, where all constraints allow.
func jointSpread(c *sched.Class, tscs []corev1.TopologySpreadConstraint, w *sched.Row, pools []sched.Pool) []check.Finding {
	if len(tscs) < 2 {
		return nil
	}
	placed := sched.JointPlaced(c, tscs, w, pools)
	if placed >= int64(c.Need()) {
		return nil
	}
	return []check.Finding{{Severity: check.Error, Check: IDPodTopologySpread, Class: c.Name,
		Message: fmt.Sprintf("only %d of %d pods can be placed under all %d spread constraints together, each of which alone holds them: %s",
			placed, c.Pods, len(tscs), sched.ErrReasonSpread)}}
}
