package check

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// CPUOnGPU proves a side that must not happen: a CPU-only class on a GPU
// pool, where it holds a node whose GPUs then sit idle.
func CPUOnGPU(cl *Cluster, rows []Row, _ Intent) []Finding {
	var out []Finding
	for i := range cl.Classes {
		c := &cl.Classes[i]
		if !cpuOnly(c) {
			continue
		}
		for _, p := range landsOn(cl, &rows[i]) {
			if poolHasGPU(p) {
				out = append(out, Finding{Severity: Error, Check: IDCPUOnGPU, Class: c.Name, Pool: p.Name,
					Message: fmt.Sprintf("CPU-only class %s can land on GPU pool %s", c.Name, p.Name)})
			}
		}
	}
	return out
}

// cpuOnly: the class asks for no GPU; a MIG class asks for slices, not
// whole GPUs, which count too.
func cpuOnly(c *Class) bool {
	for r, q := range c.Info.Request {
		if (r == catalog.ResourceGPU || catalog.IsMIGResource(r)) && !q.IsZero() {
			return false
		}
	}
	return true
}

// landsOn are the pools of the row's cells that fit, in pool order.
func landsOn(cl *Cluster, w *Row) []*Pool {
	var out []*Pool
	for k, cell := range w.Evaluated {
		if cell.Fits {
			out = append(out, &cl.Pools[w.At[k]])
		}
	}
	return out
}

// poolHasGPU: a node advertises whole GPUs or MIG slices, or is of a GPU
// instance type (gpufleet's product label) whose GPUs the device plugin
// does not advertise: a CPU pod there still occupies a GPU node.
func poolHasGPU(p *Pool) bool {
	for _, n := range p.Nodes {
		if hasGPUs(n.Node) {
			return true
		}
		if _, ok := n.Labels[keys.LabelGPUProduct]; ok {
			return true
		}
	}
	return false
}
