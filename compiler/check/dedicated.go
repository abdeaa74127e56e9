package check

import (
	"fmt"
	"slices"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDDedicated ID = "Dedicated"

// Dedicated proves that no class lands on a pool dedicated to others.
func Dedicated(cl *sched.Cluster, rows []sched.Row, in Intent) []Finding {
	var out []Finding
	for i := range cl.Classes {
		c := &cl.Classes[i]
		for p := range FitPools(cl, &rows[i]) {
			if admits, ok := in.Dedicated[p.Name]; ok && !slices.Contains(admits, c.Name) {
				out = append(out, Finding{Severity: Error, Check: IDDedicated, Class: c.Name, Pool: p.Name,
					Message: fmt.Sprintf("class %s can land on pool %s, which is dedicated to %v", c.Name, p.Name, admits)})
			}
		}
	}
	return out
}
