package check

import (
	"fmt"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/nodes"
)

// A managed node group launches its first instance type when it can (an
// on-demand group allocates in priority order), cluster-autoscaler builds
// its scale-from-zero template from one type and requires the others to
// match it in CPU and memory, and a spot group launches whichever type has
// capacity. The checker credits the first type; where the others differ,
// what launches may hold less, or more, than was proved.
const (
	reasonMixedTypes     = "pool %s's node group lists instance types that differ in CPU, memory or GPUs (%s): the checker credits %s, the first, which an on-demand group launches when it can; cluster-autoscaler assumes they are equal: list types of one size"
	reasonMixedTypesSpot = "pool %s's spot node group lists instance types that differ in CPU, memory or GPUs (%s): the checker credits %s, the first, from which cluster-autoscaler builds its template, but the group launches whichever has capacity: list types of one size"
)

// mixedTypes describes each listed type of a first-type-only group, or ""
// when they match the first in vCPUs, memory and GPUs.
func mixedTypes(ng nodes.Group, cat catalog.Catalog) string {
	if !ng.FirstTypeOnly || len(ng.InstanceTypes) < 2 {
		return ""
	}
	first, ok := cat[ng.InstanceTypes[0]]
	if !ok {
		return ""
	}
	differ := false
	var desc []string
	for _, it := range ng.InstanceTypes {
		in, ok := cat[it]
		if !ok {
			return "" // poolFrom reports it
		}
		differ = differ || in.VCPU != first.VCPU || in.MemoryGiB != first.MemoryGiB || gpus(in) != gpus(first)
		d := fmt.Sprintf("%s: %d vCPU, %g GiB", it, in.VCPU, in.MemoryGiB)
		if n := gpus(in); n == 1 {
			d += ", 1 GPU"
		} else if n > 1 {
			d += fmt.Sprintf(", %d GPUs", n)
		}
		desc = append(desc, d)
	}
	if !differ {
		return ""
	}
	return strings.Join(desc, "; ")
}

func gpus(in catalog.Instance) int64 {
	if in.GPU == nil {
		return 0
	}
	return in.GPU.Count
}

// MixedTypes warns of the node groups whose types differ.
func MixedTypes(cl *Cluster, _ []Row, _ Intent) []Finding {
	var out []Finding
	for _, p := range cl.Pools {
		if p.MixedTypes != "" && len(p.Nodes) > 0 {
			reason := reasonMixedTypes
			if p.Spot {
				reason = reasonMixedTypesSpot
			}
			out = append(out, Finding{Severity: Warning, Check: IDMixedTypes, Pool: p.Name,
				Message: fmt.Sprintf(reason, p.Name, p.MixedTypes, p.Nodes[0].InstanceType)})
		}
	}
	return out
}
