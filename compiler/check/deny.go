package check

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// Deny proves the side that must not happen: a CPU-only class on a GPU
// pool, an on-demand class on spot, a class on a pool dedicated to others.
func Deny(cl *Cluster, rows map[string]*Row, in Intent) []Finding {
	var out []Finding
	for _, c := range cl.Classes {
		// A MIG class asks for slices, not whole GPUs.
		cpuOnly := true
		for r, q := range c.Info.Request {
			if (r == catalog.ResourceGPU || catalog.IsMIGResource(r)) && !q.IsZero() {
				cpuOnly = false
			}
		}
		w := rows[c.Name]
		if w == nil {
			continue
		}
		for k, cell := range w.Evaluated {
			if !cell.Fits {
				continue
			}
			p := &cl.Pools[w.At[k]]
			if cpuOnly && poolHasGPU(p) {
				out = append(out, Finding{Severity: Error, Check: IDCPUOnGPU, Class: c.Name, Pool: p.Name,
					Message: fmt.Sprintf("CPU-only class %s can land on GPU pool %s", c.Name, p.Name)})
			}
			if p.Spot && in.OnDemandOnly[c.Name] {
				out = append(out, Finding{Severity: Error, Check: IDOnDemandOnSpot, Class: c.Name, Pool: p.Name,
					Message: fmt.Sprintf("class %s demands on-demand capacity but can land on spot pool %s", c.Name, p.Name)})
			}
			if admits, ok := in.Dedicated[p.Name]; ok && !contains(admits, c.Name) {
				out = append(out, Finding{Severity: Error, Check: IDDedicated, Class: c.Name, Pool: p.Name,
					Message: fmt.Sprintf("class %s can land on pool %s, which is dedicated to %v", c.Name, p.Name, admits)})
			}
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
