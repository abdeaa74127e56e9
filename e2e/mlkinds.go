package e2e

import (
	"slices"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// mlKind reports whether the row is an ML kind's (a JobSet's,
// LeaderWorkerSet's, Ray cluster's or PyTorchJob's, or one of its roles'):
// e2e does not yet install their CRDs or run Kueue with their
// integrations (issue 52), so it leaves them out; ladder/kueue's
// TestDifferentialKinds judges their admission with Kueue's own
// integrations, and the checker's rows their placement. The kind decides
// it, whether or not the class is queued (an unqueued class's row has no
// PodSets).
func mlKind(c *sched.Class) bool {
	return c != nil && (c.Of != "" || len(c.PodSets) > 0 || slices.Contains(keys.RoleKinds, c.Kind))
}
