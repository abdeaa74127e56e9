package disruption

import (
	"fmt"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

const IDSpotCheckpoint check.ID = "SpotCheckpoint"

// A Job class that cannot checkpoint carries karpenter.sh/do-not-disrupt,
// which keeps Karpenter's consolidation and expiry off its nodes, but not
// a spot interruption: AWS reclaims the instance with two minutes' notice,
// and the Job controller replaces the pod (its podFailurePolicy ignores
// the disruption), which then starts its work over.
const reasonSpotNoCheckpoint = "class %s cannot checkpoint (%s), but lands on spot pool(s) %s: a spot interruption, which %s cannot stop, restarts its pods from the beginning"

// SpotCheckpoint warns of a Job class that cannot checkpoint landing on
// spot pools.
func SpotCheckpoint(c *sched.Class, w *sched.Row, pools []sched.Pool) []check.Finding {
	if c.Kind != keys.KindJob || c.Pod.Annotations[keys.AnnotationDoNotDisrupt] != "true" {
		return nil
	}
	var spot []string
	for k, cell := range w.Evaluated {
		if p := &pools[w.At[k]]; cell.Fits && p.Spot {
			spot = append(spot, p.Name)
		}
	}
	if len(spot) == 0 {
		return nil
	}
	return []check.Finding{{Severity: check.Warning, Check: IDSpotCheckpoint, Class: c.Name,
		Message: fmt.Sprintf(reasonSpotNoCheckpoint, c.Name, keys.AnnotationDoNotDisrupt, strings.Join(spot, ", "), keys.AnnotationDoNotDisrupt)}}
}
