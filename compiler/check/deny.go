package check

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/catalog"
)

// Deny proves the side that must not happen: a CPU-only class on a GPU
// pool, an on-demand class on spot, a class on a pool dedicated to others.
func Deny(cl *Cluster, cells map[string][]Cell, in Intent) []Finding {
	var out []Finding
	for _, c := range cl.Classes {
		gpu := c.Info.Request[catalog.ResourceGPU]
		for i, cell := range cells[c.Name] {
			if !cell.Fits {
				continue
			}
			p := &cl.Pools[i]
			if gpu.IsZero() && poolHasGPU(p) {
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

func poolHasGPU(p *Pool) bool {
	for _, n := range p.Nodes {
		if q, ok := n.Status.Capacity[catalog.ResourceGPU]; ok && !q.IsZero() {
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
