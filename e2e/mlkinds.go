package e2e

import "github.com/gpufleet/gpufleet/compiler/check/sched"

// mlKind reports whether the row is an ML kind's (a JobSet's,
// LeaderWorkerSet's, Ray cluster's or PyTorchJob's, or one of its roles'):
// e2e does not yet install their CRDs or run Kueue with their
// integrations (issue 52), so it leaves them out; ladder/kueue's
// TestDifferentialKinds judges their admission with Kueue's own
// integrations, and the checker's rows their placement.
func mlKind(c *sched.Class) bool { return c != nil && (c.Of != "" || len(c.PodSets) > 0) }
