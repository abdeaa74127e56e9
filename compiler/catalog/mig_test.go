package catalog_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// The GPU Operator release whose default MIG manager config is pinned in
// migparted/config.yaml.
var gpuOperator = upstream.Module{Path: "github.com/NVIDIA/gpu-operator", Pins: "third_party/migparted"}

// The embedded config is the GPU Operator's default-mig-parted-config, byte
// for byte below its header: the layouts follow NVIDIA's file, not ours.
func TestMIGConfigPinned(t *testing.T) {
	path, err := gpuOperator.File("assets/state-mig-manager/0400_configmap.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cm struct {
		Metadata struct{ Name string }
		Data     map[string]string
	}
	if err := yaml.Unmarshal(b, &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Metadata.Name != "default-mig-parted-config" {
		t.Fatalf("%s is ConfigMap %q, want default-mig-parted-config", path, cm.Metadata.Name)
	}
	ours, err := os.ReadFile("migparted/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	body := string(ours)
	for strings.HasPrefix(body, "#") {
		_, body, _ = strings.Cut(body, "\n")
	}
	if body != cm.Data["config.yaml"] {
		t.Errorf("migparted/config.yaml below its header is not the data key config.yaml of %s", path)
	}
	if v, err := gpuOperator.Version(); err != nil || !strings.Contains(string(ours), v) {
		t.Errorf("migparted/config.yaml's header does not name the pinned version %s (%v)", v, err)
	}
}

// Every layout of the pinned config (migparted/config.yaml) for the
// catalog's GPUs, with what it makes of each GPU. The device-filtered ones
// are the file's own entries for the GPU's device ID (all-1g.10gb is 4 per
// GPU on an A100 40GB, 7 on an 80GB one; all-balanced mixes three
// profiles); the unfiltered ones apply where the GPU offers their profile.
func TestMIGLayoutsPinned(t *testing.T) {
	cat := aws.Catalog(nil)
	want := map[string]map[string]string{
		"p4d.24xlarge": { // A100 SXM4 40GB, 0x20B010DE
			"all-1g.5gb":    "1g.5gb×7",
			"all-1g.5gb.me": "1g.5gb+me×1",
			"all-1g.10gb":   "1g.10gb×4",
			"all-2g.10gb":   "2g.10gb×3",
			"all-3g.20gb":   "3g.20gb×2",
			"all-4g.20gb":   "4g.20gb×1",
			"all-7g.40gb":   "7g.40gb×1",
			"all-balanced":  "1g.5gb×2 2g.10gb×1 3g.20gb×1",
		},
		"p4de.24xlarge": { // A100 SXM4 80GB, 0x20B210DE
			"all-1g.10gb":    "1g.10gb×7",
			"all-1g.10gb.me": "1g.10gb+me×1",
			"all-1g.20gb":    "1g.20gb×4",
			"all-2g.20gb":    "2g.20gb×3",
			"all-3g.40gb":    "3g.40gb×2",
			"all-4g.40gb":    "4g.40gb×1",
			"all-7g.80gb":    "7g.80gb×1",
			"all-balanced":   "1g.10gb×2 2g.20gb×1 3g.40gb×1",
		},
		"p5e.48xlarge": { // H200 141GB, 0x233510DE
			"all-1g.18gb":    "1g.18gb×7",
			"all-1g.18gb.me": "1g.18gb+me×1",
			"all-1g.35gb":    "1g.35gb×4",
			"all-2g.35gb":    "2g.35gb×3",
			"all-3g.71gb":    "3g.71gb×2",
			"all-4g.71gb":    "4g.71gb×1",
			"all-7g.141gb":   "7g.141gb×1",
			"all-balanced":   "1g.18gb×2 2g.35gb×1 3g.71gb×1",
		},
	}
	want["p5.48xlarge"] = want["p4de.24xlarge"] // H100 SXM5 80GB, 0x233010DE: the same entries
	want["p5en.48xlarge"] = want["p5e.48xlarge"]
	for it, layouts := range want {
		g := cat[it].GPU
		var names []string
		for l, ps := range layouts {
			names = append(names, l)
			got, ok := catalog.MIGLayout(g, l)
			if s := profiles(got); !ok || s != ps {
				t.Errorf("%s %s = %q %v, want %q", it, l, s, ok, ps)
			}
		}
		slices.Sort(names)
		if got := catalog.MIGLayouts(g); !slices.Equal(got, names) {
			t.Errorf("MIGLayouts(%s) = %q\nwant %q", it, got, names)
		}
	}
	for _, tc := range []struct{ it, layout string }{
		{"p4d.24xlarge", "all-3g.40gb"},   // an 80GB profile
		{"p4d.24xlarge", "all-1g.20gb"},   // H100-80GB, A100-80GB
		{"p5.48xlarge", "all-1g.5gb"},     // A100-40GB
		{"p5e.48xlarge", "all-1g.10gb"},   // filtered to 40 and 80GB devices
		{"p4de.24xlarge", "all-1g.12gb"},  // H100 NVL
		{"p4de.24xlarge", "all-disabled"}, // no slices
		{"p4de.24xlarge", "all-enabled"},  // no slices
		{"g6.xlarge", "all-1g.10gb"},      // no MIG
	} {
		if got, ok := catalog.MIGLayout(cat[tc.it].GPU, tc.layout); ok {
			t.Errorf("%s %s = %q, want no layout", tc.it, tc.layout, profiles(got))
		}
	}
}

func profiles(ps []catalog.MIGProfile) string {
	var s []string
	for _, p := range ps {
		s = append(s, fmt.Sprintf("%s×%d", p.Name, p.PerGPU))
	}
	return strings.Join(s, " ")
}

func TestMIG(t *testing.T) {
	cat := aws.Catalog(nil)
	a100 := cat["p4de.24xlarge"]
	if got := catalog.LayoutsWithProfile("1g.10gb"); !slices.Equal(got, []string{"all-1g.10gb", "all-balanced"}) {
		t.Errorf("LayoutsWithProfile(1g.10gb) = %v", got)
	}
	if got := catalog.LayoutsWithProfile("4g.71gb"); !slices.Equal(got, []string{"all-4g.71gb"}) {
		t.Errorf("LayoutsWithProfile(4g.71gb) = %v", got)
	}
	if got := catalog.LayoutsWithProfile("9g.99gb"); len(got) != 0 {
		t.Errorf("LayoutsWithProfile(9g.99gb) = %v", got)
	}
	all := []string{"all-1g.10gb", "all-1g.10gb.me", "all-1g.18gb", "all-1g.18gb.me", "all-1g.20gb", "all-1g.35gb",
		"all-1g.5gb", "all-1g.5gb.me", "all-2g.10gb", "all-2g.20gb", "all-2g.35gb", "all-3g.20gb", "all-3g.40gb",
		"all-3g.71gb", "all-4g.20gb", "all-4g.40gb", "all-4g.71gb", "all-7g.141gb", "all-7g.40gb", "all-7g.80gb", "all-balanced"}
	if got := catalog.AllMIGLayouts(); !slices.Equal(got, all) {
		t.Errorf("AllMIGLayouts() = %q\nwant %q", got, all)
	}
	if catalog.SupportsMIG("L4") || !catalog.SupportsMIG("H200") {
		t.Error("SupportsMIG")
	}
	rl := a100.Shared(a100.Allocatable(), 1, "all-1g.10gb")
	if g, s := rl[catalog.ResourceGPU], rl[catalog.MIGResource("1g.10gb")]; g.Value() != 0 || s.Value() != 56 {
		t.Errorf("MIG node: gpu %s, slices %s", g.String(), s.String())
	}
	// A mixed layout advertises each of its profiles.
	rl = a100.Shared(a100.Allocatable(), 1, "all-balanced")
	for r, n := range map[corev1.ResourceName]int64{"nvidia.com/mig-1g.10gb": 16, "nvidia.com/mig-2g.20gb": 8, "nvidia.com/mig-3g.40gb": 8, catalog.ResourceGPU: 0} {
		if q, ok := rl[r]; !ok || q.Value() != n {
			t.Errorf("all-balanced: %s = %s, want %d", r, q.String(), n)
		}
	}
	// The device plugin makes "+" a "." (internal/rm AddDefaultResourcesToConfig).
	rl = a100.Shared(a100.Allocatable(), 1, "all-1g.10gb.me")
	if s := rl["nvidia.com/mig-1g.10gb.me"]; s.Value() != 8 {
		t.Errorf("all-1g.10gb.me: nvidia.com/mig-1g.10gb.me = %s, want 8 (%v)", s.String(), rl)
	}
	l4 := cat["g6.12xlarge"]
	if g := l4.Shared(l4.Allocatable(), 4, "")[catalog.ResourceGPU]; g.Value() != 16 {
		t.Errorf("time-sliced g6.12xlarge: gpu %s", g.String())
	}
	if g := l4.Allocatable()[catalog.ResourceGPU]; g.Value() != 4 {
		t.Error("Shared must not change its input")
	}
}
