package catalog

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

const (
	// MIGResourcePrefix names a MIG slice's resource under the device
	// plugin's "mixed" strategy: nvidia.com/mig-1g.10gb.
	MIGResourcePrefix = "nvidia.com/mig-"
)

// MIGProfile is one MIG device profile of a layout and how many of it the
// layout makes of each GPU.
type MIGProfile struct {
	Name   string // as the MIG manager names it, e.g. "1g.10gb", "1g.10gb+me"
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

// migGPU is a catalog GPU as the MIG manager knows it: by PCI device ID,
// which its config's device-filter matches, with the GPU instance profiles
// the GPU offers and the most of each that fit on it.
type migGPU struct {
	key migKey
	// deviceID is the PCI device and vendor ID as device-filter writes
	// it: 0x20B010DE is device 0x20B0 of vendor 0x10DE (NVIDIA).
	deviceID uint32
	// profiles are what NVIDIA's MIG User Guide lists for the GPU ("Supported
	// MIG Profiles"), as NVML names them: go-nvml's mocks of these GPUs
	// (github.com/NVIDIA/go-nvml v0.13.4-1, pkg/nvml/mock/gpus/a100.go,
	// h100.go, h200.go) carry the same instance counts and memory sizes.
	// "+me" is the profile with the media extensions (one per GPU).
	profiles map[string]int64
}

// migGPUs are the catalog's MIG-capable GPUs, one per product and memory:
// the form of the EC2 instances that carry them (p4d, p4de, p5, p5e and
// p5en). The device IDs are from the PCI ID Repository (pci.ids, as Debian
// ships it in pci.ids 0.0~2023.04.11-1: 20b0 "GA100 [A100 SXM4 40GB]", 20b2
// "GA100 [A100 SXM4 80GB]", 2330 "GH100[H100 SXM5 80GB]"), and for the H200,
// which that release predates, from the pinned config itself, whose
// all-balanced entry for ["0x233510DE", "0x233B10DE"] is headed "H200
// 141GB, H200 NVL" (0x233B is the NVL).
var migGPUs = []migGPU{
	{migKey{a100, 40}, 0x20B010DE, map[string]int64{
		"1g.5gb": 7, "1g.5gb+me": 1, "1g.10gb": 4, "2g.10gb": 3, "3g.20gb": 2, "4g.20gb": 1, "7g.40gb": 1}},
	{migKey{a100, 80}, 0x20B210DE, map[string]int64{
		"1g.10gb": 7, "1g.10gb+me": 1, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1}},
	{migKey{h100, 80}, 0x233010DE, map[string]int64{
		"1g.10gb": 7, "1g.10gb+me": 1, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1}},
	{migKey{h200, 141}, 0x233510DE, map[string]int64{
		"1g.18gb": 7, "1g.18gb+me": 1, "1g.35gb": 4, "2g.35gb": 3, "3g.71gb": 2, "4g.71gb": 1, "7g.141gb": 1}},
}

// migConfigYAML is NVIDIA's default MIG manager config, pinned: see its
// header for the source and commit.
//
//go:embed migparted/config.yaml
var migConfigYAML []byte

// migPartedConfig is the MIG manager's config file (mig-parted's v1 spec):
// each named layout is a list of entries, each applied to the GPUs its
// device-filter (none: every GPU) and devices select.
type migPartedConfig struct {
	Version    string                      `json:"version"`
	MigConfigs map[string][]migConfigEntry `json:"mig-configs"`
}

type migConfigEntry struct {
	DeviceFilter stringOrList     `json:"device-filter"`
	Devices      json.RawMessage  `json:"devices"`
	MigEnabled   bool             `json:"mig-enabled"`
	MigDevices   map[string]int64 `json:"mig-devices"`
}

// stringOrList is a device-filter: one ID or a list of them.
type stringOrList []string

func (s *stringOrList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = []string{one}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	*s = list
	return nil
}

// matches reports whether the entry applies to every GPU of this device ID:
// its filter names the ID (or it has none) and its devices are "all".
func (e migConfigEntry) matches(id uint32) (bool, error) {
	if string(e.Devices) != `"all"` {
		return false, nil
	}
	if len(e.DeviceFilter) == 0 {
		return true, nil
	}
	for _, f := range e.DeviceFilter {
		v, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(f), "0x"), 16, 32)
		if err != nil {
			return false, fmt.Errorf("device-filter %q: %w", f, err)
		}
		if uint32(v) == id {
			return true, nil
		}
	}
	return false, nil
}

// migLayouts is, per catalog GPU, every layout of the pinned config that
// applies to it, with its profiles sorted by name.
var migLayouts = sync.OnceValue(func() map[migKey]map[string][]MIGProfile {
	out, err := parseMIGLayouts(migConfigYAML)
	if err != nil {
		panic("catalog: the pinned MIG manager config: " + err.Error())
	}
	return out
})

// parseMIGLayouts reads a MIG manager config for the catalog's GPUs. A
// layout applies to a GPU when exactly one of its entries selects all of
// the GPU's devices, enables MIG and makes devices of profiles the GPU
// offers, no more of each than fit: the MIG manager would fail to apply
// anything else (an entry without a filter, such as all-1g.5gb, is meant
// for the GPUs its profile names). all-disabled and all-enabled make no
// slices, so they are no layout here.
func parseMIGLayouts(data []byte) (map[migKey]map[string][]MIGProfile, error) {
	var cfg migPartedConfig
	if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
		return nil, err
	}
	if cfg.Version != "v1" {
		return nil, fmt.Errorf("version %q, want v1", cfg.Version)
	}
	out := map[migKey]map[string][]MIGProfile{}
	for _, g := range migGPUs {
		out[g.key] = map[string][]MIGProfile{}
		for name, entries := range cfg.MigConfigs {
			var found []migConfigEntry
			for _, e := range entries {
				ok, err := e.matches(g.deviceID)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
				if ok {
					found = append(found, e)
				}
			}
			if len(found) != 1 || !found[0].MigEnabled || len(found[0].MigDevices) == 0 {
				continue
			}
			var ps []MIGProfile
			for p, n := range found[0].MigDevices {
				if most, ok := g.profiles[p]; !ok || n < 1 || n > most {
					ps = nil
					break
				}
				ps = append(ps, MIGProfile{Name: p, PerGPU: n})
			}
			if len(ps) == 0 {
				continue
			}
			sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
			out[g.key][name] = ps
		}
	}
	return out, nil
}

// MIGResource is the extended resource of a MIG profile as the device
// plugin names it under the mixed strategy: "mig-" and the profile, "+"
// made "." (k8s-device-plugin's internal/rm AddDefaultResourcesToConfig),
// so 1g.10gb+me is nvidia.com/mig-1g.10gb.me.
func MIGResource(profile string) corev1.ResourceName {
	return corev1.ResourceName(MIGResourcePrefix + strings.ReplaceAll(profile, "+", "."))
}

// IsMIGResource reports whether r is a MIG slice.
func IsMIGResource(r corev1.ResourceName) bool {
	return strings.HasPrefix(string(r), MIGResourcePrefix)
}

// SupportsMIG reports whether any known GPU of this product has MIG.
func SupportsMIG(product string) bool {
	for _, g := range migGPUs {
		if g.key.product == product {
			return true
		}
	}
	return false
}

// MIGLayout resolves a layout on a GPU: the profiles it cuts each GPU into.
func MIGLayout(g *GPU, layout string) ([]MIGProfile, bool) {
	if g == nil {
		return nil, false
	}
	ps, ok := migLayouts()[migKey{g.Product, g.MemoryGiB}][layout]
	return ps, ok
}

// MIGLayouts lists the layouts a GPU supports, sorted.
func MIGLayouts(g *GPU) []string {
	if g == nil {
		return nil
	}
	return sortedKeys(migLayouts()[migKey{g.Product, g.MemoryGiB}])
}

// LayoutsWithProfile lists every known layout that yields the profile on
// some GPU: the MIG label values a class asking for it may land on (none
// if unknown). Which GPU's layout it is, the node's resources tell.
func LayoutsWithProfile(profile string) []string {
	seen := map[string]bool{}
	for _, ls := range migLayouts() {
		for l, ps := range ls {
			for _, p := range ps {
				if p.Name == profile {
					seen[l] = true
				}
			}
		}
	}
	return sortedKeys(seen)
}

// AllMIGLayouts lists every layout known for some GPU, sorted.
func AllMIGLayouts() []string {
	seen := map[string]bool{}
	for _, ls := range migLayouts() {
		for l := range ls {
			seen[l] = true
		}
	}
	return sortedKeys(seen)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Shared is a resource list as the device plugin advertises it on a node
// that time-slices each GPU into replicas (1 for none), or that the MIG
// manager cut by layout: whole GPUs are then gone (nvidia.com/gpu 0, the
// mixed strategy) and each profile of the layout is a resource of its own.
func (in Instance) Shared(rl corev1.ResourceList, replicas int64, layout string) corev1.ResourceList {
	if in.GPU == nil {
		return rl
	}
	out := rl.DeepCopy()
	if replicas > 1 {
		out[ResourceGPU] = *resource.NewQuantity(in.GPU.Count*replicas, resource.DecimalSI)
	}
	if ps, ok := MIGLayout(in.GPU, layout); ok {
		out[ResourceGPU] = *resource.NewQuantity(0, resource.DecimalSI)
		for _, p := range ps {
			out[MIGResource(p.Name)] = *resource.NewQuantity(in.GPU.Count*p.PerGPU, resource.DecimalSI)
		}
	}
	return out
}
