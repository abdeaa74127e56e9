package scheduling

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDOnDemandOnSpot check.ID = "OnDemandOnSpot"

// OnDemandOnSpot proves that no class the spec keeps on on-demand capacity
// can land on a spot pool.
func OnDemandOnSpot(cl *sched.Cluster, rows []sched.Row, in check.Intent) []check.Finding {
	var out []check.Finding
	for i := range cl.Classes {
		c := &cl.Classes[i]
		if !in.OnDemandOnly[c.Name] {
			continue
		}
		for p := range check.FitPools(cl, &rows[i]) {
			if p.Spot {
				out = append(out, check.Finding{Severity: check.Error, Check: IDOnDemandOnSpot, Class: c.Name, Pool: p.Name,
					Message: fmt.Sprintf("class %s demands on-demand capacity but can land on spot pool %s", c.Name, p.Name)})
			}
		}
	}
	return out
}
