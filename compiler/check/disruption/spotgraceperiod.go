package disruption

import (
	"fmt"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDSpotGracePeriod check.ID = "SpotGracePeriod"

// The cloud reclaims a spot instance a fixed time after its interruption
// notice (on AWS two minutes: the EC2 user guide's "Spot Instance
// interruption notices"; Karpenter v1.15.1 drains the node when the
// notice arrives, pkg/controllers/interruption/messages/spotinterruption),
// whatever the pod's terminationGracePeriodSeconds: a checkpoint window
// longer than the notice is cut short, and the work since the last
// checkpoint is lost.
const reasonSpotGrace = "class %s asks for %d s to checkpoint (checkpointGracePeriodSeconds), but lands on spot pool(s) %s, whose instances are reclaimed %d s after the interruption notice: its pods are killed before the window ends; checkpoint within %d s, or keep the class off spot"

// SpotGracePeriod warns of a class whose grace period is longer than the
// spot notice, where it lands on spot pools.
func SpotGracePeriod(cl *sched.Cluster, rows []sched.Row, in check.Intent) []check.Finding {
	if in.SpotNoticeSeconds <= 0 {
		return nil
	}
	var out []check.Finding
	for i := range cl.Classes {
		c := &cl.Classes[i]
		g := c.Pod.Spec.TerminationGracePeriodSeconds
		if g == nil || *g <= in.SpotNoticeSeconds {
			continue
		}
		var spot []string
		for p := range check.FitPools(cl, &rows[i]) {
			if p.Spot {
				spot = append(spot, p.Name)
			}
		}
		if len(spot) > 0 {
			out = append(out, check.Finding{Severity: check.Warning, Check: IDSpotGracePeriod, Class: c.Name,
				Message: fmt.Sprintf(reasonSpotGrace, c.Name, *g, strings.Join(spot, ", "), in.SpotNoticeSeconds, in.SpotNoticeSeconds)})
		}
	}
	return out
}
