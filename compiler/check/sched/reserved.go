package sched

import (
	"strconv"

	"github.com/gpufleet/gpufleet/compiler/keys"
)

// ReservedGPUs is how many instances the pool's reservations hold and
// their GPUs, as the pool's nodes of each reserved type are labelled
// (gpufleet.dev/gpu-count: the physical GPUs, whatever MIG or sharing
// advertises).
func (p *Pool) ReservedGPUs() (instances, gpus int64) {
	per := map[string]int64{}
	for _, n := range p.Nodes {
		if n.Node == nil {
			continue
		}
		if g, err := strconv.ParseInt(n.Labels[keys.LabelGPUCount], 10, 64); err == nil {
			per[n.InstanceType] = g
		}
	}
	for _, r := range p.Reserved {
		instances += int64(r.Count)
		gpus += int64(r.Count) * per[r.InstanceType]
	}
	return instances, gpus
}
