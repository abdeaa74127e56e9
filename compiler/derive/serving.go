package derive

import (
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// maxUnavailable is the PodDisruptionBudget of a serving class's workload:
// how many of its replicas voluntary disruptions (a drain, Karpenter's
// consolidation or expiry) may take at once. One, or the zone spread's
// maxSkew when larger, since the spread already accepts that much
// imbalance between zones; never all of them. Nil means no budget: a Job
// is protected by its podFailurePolicy and checkpoints instead, and a
// single replica's budget either blocks every drain (0) or allows it (1).
func maxUnavailable(c spec.Class) *int32 {
	if c.Kind == keys.KindJob || c.Replicas < 2 {
		return nil
	}
	n := int32(1)
	if c.Spread != nil && c.Spread.Zones != "" {
		n = max(n, c.Spread.MaxSkew)
	}
	n = min(n, c.Replicas-1)
	return &n
}
