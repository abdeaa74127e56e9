package scheduling

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

const IDCPUOnGPU check.ID = "CPUOnGPU"

// CPUOnGPU proves a side that must not happen: a CPU-only class on a GPU
// pool, where it holds a node whose GPUs then sit idle.
func CPUOnGPU(cl *sched.Cluster, rows []sched.Row, _ check.Intent) []check.Finding {
	var out []check.Finding
	for i := range cl.Classes {
		c := &cl.Classes[i]
		// A class that asks for GPUs, whole or MIG slices or claimed, is not CPU-only.
		if sched.AnyGPU(c.Info.Request) || c.Info.Claims.Asks() {
			continue
		}
		for p := range check.FitPools(cl, &rows[i]) {
			if poolHasGPU(p) {
				out = append(out, check.Finding{Severity: check.Error, Check: IDCPUOnGPU, Class: c.Name, Pool: p.Name,
					Message: fmt.Sprintf("CPU-only class %s can land on GPU pool %s", c.Name, p.Name)})
			}
		}
	}
	return out
}

// poolHasGPU: a node advertises whole GPUs or MIG slices, or is of a GPU
// instance type (gpufleet's product label) whose GPUs the device plugin
// does not advertise: a CPU pod there still occupies a GPU node.
func poolHasGPU(p *sched.Pool) bool {
	for _, n := range p.Nodes {
		if sched.HasGPUs(n.Node) {
			return true
		}
		if _, ok := n.Labels[keys.LabelGPUProduct]; ok {
			return true
		}
	}
	return false
}
