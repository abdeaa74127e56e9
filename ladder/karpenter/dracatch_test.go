package nodediff

import (
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// TestKarpenterDRACatches shows what TestKarpenterSolve's DRA cells catch:
// a checker that forgets how Karpenter is installed (claims launched for
// whatever its settings), and one that ignores a pod's claims when packing
// Karpenter's nodes, each disagree with Karpenter's Solve.
func TestKarpenterDRACatches(t *testing.T) {
	bugs := map[string]int{}
	cells := 0
	eachSolved(t, func(c *sched.Class) bool { return c.Info.Claims.Asks() }, func(x solved) {
		cells++
		// Settings forgotten: Karpenter launches for claims.
		blind := x.sh
		blind.NoKarpenterDRA = ""
		if len(compare(x.f.name, x.c.Name, x.np.Name, checker(t, x.f, x.c, x.p, &blind), x.theirs)) > 0 {
			bugs["settings forgotten"]++
		}
		// Claims ignored: the pod without them, on nodes without devices.
		nc := *x.c
		info := *x.c.Info
		info.Claims = nil
		nc.Info = &info
		nc.Pod = x.c.Pod.DeepCopy()
		nc.Pod.Spec.ResourceClaims = nil
		if len(compare(x.f.name, x.c.Name, x.np.Name, verdictOf(&nc, sched.Evaluate(&nc, &x.sh), &x.sh), x.theirs)) > 0 {
			bugs["claims ignored"]++
		}
	})
	t.Logf("%d DRA cells: a checker with the settings forgotten differs on %d, one that ignores claims on %d", cells, bugs["settings forgotten"], bugs["claims ignored"])
	for _, bug := range []string{"settings forgotten", "claims ignored"} {
		if bugs[bug] == 0 {
			t.Errorf("a checker with its DRA %s agrees with Karpenter on all %d cells: the differential catches nothing", bug, cells)
		}
	}
}
