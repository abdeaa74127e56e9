package catalog

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

const (
	// MIGResourcePrefix names a MIG slice's resource under the device
	// plugin's "mixed" strategy: nvidia.com/mig-1g.10gb.
	MIGResourcePrefix = "nvidia.com/mig-"
	migLayoutPrefix   = "all-"
)

// MIGProfile is one slice size and how many a GPU holds.
type MIGProfile struct {
	Name   string // e.g. "1g.10gb"
	PerGPU int64
}

// The MIG-capable GPU products, named as the spec names them.
const (
	a100 = "A100"
	h100 = "H100"
	h200 = "H200"
)

type migKey struct {
	product   string
	memoryGiB int64
}

// migTable is the profiles NVIDIA documents per MIG-capable GPU. Only
// uniform layouts (every GPU cut into one profile, mig-parted's
// "all-<profile>") are offered, so a node's slices follow from its label.
var migTable = map[migKey][]MIGProfile{
	{a100, 40}:  {{"1g.5gb", 7}, {"2g.10gb", 3}, {"3g.20gb", 2}},
	{a100, 80}:  {{"1g.10gb", 7}, {"2g.20gb", 3}, {"3g.40gb", 2}},
	{h100, 80}:  {{"1g.10gb", 7}, {"2g.20gb", 3}, {"3g.40gb", 2}},
	{h200, 141}: {{"1g.18gb", 7}, {"2g.35gb", 3}, {"3g.71gb", 2}},
}

// MIGResource is the extended resource of a MIG profile.
func MIGResource(profile string) corev1.ResourceName {
	return corev1.ResourceName(MIGResourcePrefix + profile)
}

// IsMIGResource reports whether r is a MIG slice.
func IsMIGResource(r corev1.ResourceName) bool {
	return strings.HasPrefix(string(r), MIGResourcePrefix)
}

// SupportsMIG reports whether any known GPU of this product has MIG.
func SupportsMIG(product string) bool {
	for k := range migTable {
		if k.product == product {
			return true
		}
	}
	return false
}

// MIGLayout resolves a layout on a GPU: its profile and slices per GPU.
func MIGLayout(g *GPU, layout string) (MIGProfile, bool) {
	if g == nil {
		return MIGProfile{}, false
	}
	for _, p := range migTable[migKey{g.Product, g.MemoryGiB}] {
		if migLayoutPrefix+p.Name == layout {
			return p, true
		}
	}
	return MIGProfile{}, false
}

// MIGLayouts lists the layouts a GPU supports, sorted.
func MIGLayouts(g *GPU) []string {
	var out []string
	if g != nil {
		for _, p := range migTable[migKey{g.Product, g.MemoryGiB}] {
			out = append(out, migLayoutPrefix+p.Name)
		}
	}
	sort.Strings(out)
	return out
}

// LayoutsWithProfile lists every known layout that yields the profile: the
// MIG label values a class asking for it may land on (none if unknown).
func LayoutsWithProfile(profile string) []string {
	seen := map[string]bool{}
	for _, ps := range migTable {
		for _, p := range ps {
			if p.Name == profile {
				seen[migLayoutPrefix+p.Name] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for l := range seen {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// AllMIGLayouts lists every layout the table knows, sorted.
func AllMIGLayouts() []string {
	seen := map[string]bool{}
	for _, ps := range migTable {
		for _, p := range ps {
			seen[migLayoutPrefix+p.Name] = true
		}
	}
	out := make([]string, 0, len(seen))
	for l := range seen {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// Shared is a resource list as the device plugin advertises it on a node
// that time-slices each GPU into replicas (1 for none), or that the MIG
// manager cut by layout: whole GPUs are then gone (nvidia.com/gpu 0, the
// mixed strategy) and each slice is a resource of its own.
func (in Instance) Shared(rl corev1.ResourceList, replicas int64, layout string) corev1.ResourceList {
	if in.GPU == nil {
		return rl
	}
	out := rl.DeepCopy()
	if replicas > 1 {
		out[ResourceGPU] = *resource.NewQuantity(in.GPU.Count*replicas, resource.DecimalSI)
	}
	if p, ok := MIGLayout(in.GPU, layout); ok {
		out[ResourceGPU] = *resource.NewQuantity(0, resource.DecimalSI)
		out[MIGResource(p.Name)] = *resource.NewQuantity(in.GPU.Count*p.PerGPU, resource.DecimalSI)
	}
	return out
}
