package scheduling

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

const IDRollout check.ID = "Rollout"

// Rollout proves that a Deployment's rolling update can progress at max
// size. The Deployment controller (k8s.io/kubernetes
// pkg/controller/deployment/rolling.go, reconcileNewReplicaSet and
// reconcileOldReplicaSets) creates at most maxSurge pods above replicas,
// and takes old ones down only while replicas - maxUnavailable stay
// available: with maxUnavailable 0, the first new pod must fit beside
// every old one. Its spreads and anti-affinity do not count the old
// ReplicaSet's pods (matchLabelKeys pod-template-hash), so it needs only a
// node with room. A queued Deployment's new pod waits on Kueue first.
func Rollout(c *sched.Class, w *sched.Row, pools []sched.Pool) []check.Finding {
	if c.Kind != keys.KindDeployment || c.Queued || c.MaxUnavailable > 0 || c.MaxSurge == 0 {
		return nil
	}
	var capacity int64
	var parts, reasons []string
	for k, cell := range w.Evaluated {
		if !cell.Fits {
			continue
		}
		capacity += cell.Capacity
		parts = append(parts, fmt.Sprintf("%s %d", cell.Pool, cell.Capacity))
		for _, r := range sched.FullNodeReasons(c.Info, &pools[w.At[k]], cell.Type) {
			if !slices.Contains(reasons, r) {
				reasons = append(reasons, r)
			}
		}
	}
	// Where the replicas do not fit at all, Lands and Capacity say so.
	if capacity == 0 || capacity != int64(c.Pods) {
		return nil
	}
	slices.Sort(reasons)
	return []check.Finding{{Severity: check.Error, Check: IDRollout, Class: c.Name,
		Message: fmt.Sprintf("a rollout of class %s cannot progress at max size: maxUnavailable 0 keeps its %d old pods, which fill the pools that fit (%s), so the first of maxSurge %d new pods stays Pending (%s) and the rollout ends in ProgressDeadlineExceeded; set rollout.maxUnavailable to 1 or more, or give the pools room for %d more pods",
			c.Name, c.Pods, strings.Join(parts, ", "), c.MaxSurge, strings.Join(reasons, ", "), c.MaxSurge)}}
}
