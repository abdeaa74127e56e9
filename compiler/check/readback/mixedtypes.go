package readback

import (
	"fmt"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/nodes"
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
