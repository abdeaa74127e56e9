package scheduling

import (
	"fmt"
	"slices"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDDedicated check.ID = "Dedicated"

// Dedicated proves that no class lands on a pool dedicated to others.
func Dedicated(cl *sched.Cluster, rows []sched.Row, in check.Intent) []check.Finding {
	var out []check.Finding
	for i := range cl.Classes {
		c := &cl.Classes[i]
		for p := range check.FitPools(cl, &rows[i]) {
			if admits, ok := in.Dedicated[p.Name]; ok && !slices.Contains(admits, c.Name) {
				out = append(out, check.Finding{Severity: check.Error, Check: IDDedicated, Class: c.Name, Pool: p.Name,
					Message: fmt.Sprintf("class %s can land on pool %s, which is dedicated to %v", c.Name, p.Name, admits)})
			}
		}
	}
	return out
}
