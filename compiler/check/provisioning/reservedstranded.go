package provisioning

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDReservedStranded check.ID = "ReservedStranded"

// A reservation is paid for from its start to its end whether instances
// run in it or not (EC2 bills an ODCR at the on-demand rate of its
// instance type while it is active, and a Capacity Block up front): a
// reserved pool no class lands on strands every GPU of it.
const reasonReservedStranded = "pool %s holds %d reserved instances (%d GPUs), paid for whether used or not, but no class lands on it: every reserved GPU is stranded"

// ReservedStranded warns of reserved capacity no class can use.
func ReservedStranded(cl *sched.Cluster, rows []sched.Row, _ check.Intent) []check.Finding {
	used := map[string]bool{}
	for _, w := range rows {
		for k, cell := range w.Evaluated {
			if cell.Fits {
				used[cl.Pools[w.At[k]].Name] = true
			}
		}
	}
	var out []check.Finding
	for _, p := range cl.Pools {
		if len(p.Reserved) == 0 || used[p.Name] {
			continue
		}
		n, gpus := p.ReservedGPUs()
		out = append(out, check.Finding{Severity: check.Warning, Check: IDReservedStranded, Pool: p.Name,
			Message: fmt.Sprintf(reasonReservedStranded, p.Name, n, gpus)})
	}
	return out
}
