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
	_, described, _ := setup(t)
	bugs := map[string]int{}
	cells := 0
	names, paths := fleetPaths(t, *solveFleets, *solveKarpenter)
	for i := range paths {
		f := load(t, names[i], paths[i])
		if f == nil {
			continue
		}
		ctx := f.context(t)
		its := f.instanceTypes(t, ctx, described)
		daemons := f.daemons(t)
		for _, np := range f.pools {
			p := poolNamed(t, f.cl, np.Name)
			sh := share(t, *p, np)
			for j := range f.cl.Classes {
				c := &f.cl.Classes[j]
				if !c.Info.Claims.Asks() {
					continue
				}
				theirs, err := karpenter(ctx, np, its[np.Spec.Template.Spec.NodeClassRef.Name], c, daemons)
				if err != nil {
					t.Fatal(err)
				}
				cells++
				// Settings forgotten: Karpenter launches for claims.
				blind := sh
				blind.NoKarpenterDRA = ""
				if len(compare(f.name, c.Name, np.Name, checker(t, f, c, p, &blind), theirs)) > 0 {
					bugs["settings forgotten"]++
				}
				// Claims ignored: the pod without them, on nodes without devices.
				nc := *c
				info := *c.Info
				info.Claims = nil
				nc.Info = &info
				nc.Pod = c.Pod.DeepCopy()
				nc.Pod.Spec.ResourceClaims = nil
				if len(compare(f.name, c.Name, np.Name, verdictOf(&nc, sched.Evaluate(&nc, &sh), &sh), theirs)) > 0 {
					bugs["claims ignored"]++
				}
			}
		}
	}
	t.Logf("%d DRA cells: a checker with the settings forgotten differs on %d, one that ignores claims on %d", cells, bugs["settings forgotten"], bugs["claims ignored"])
	for _, bug := range []string{"settings forgotten", "claims ignored"} {
		if bugs[bug] == 0 {
			t.Errorf("a checker with its DRA %s agrees with Karpenter on all %d cells: the differential catches nothing", bug, cells)
		}
	}
}
