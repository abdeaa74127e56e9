package catalog_test

import (
	"slices"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
)

func TestMIG(t *testing.T) {
	cat := aws.Catalog(nil)
	a100 := cat["p4de.24xlarge"]
	if p, ok := catalog.MIGLayout(a100.GPU, "all-3g.40gb"); !ok || p.PerGPU != 2 {
		t.Errorf("A100 80GB all-3g.40gb = %+v %v", p, ok)
	}
	if _, ok := catalog.MIGLayout(cat["p4d.24xlarge"].GPU, "all-3g.40gb"); ok {
		t.Error("A100 40GB has no 3g.40gb")
	}
	if got := catalog.LayoutsWithProfile("1g.10gb"); !slices.Equal(got, []string{"all-1g.10gb"}) {
		t.Errorf("LayoutsWithProfile(1g.10gb) = %v", got)
	}
	if catalog.SupportsMIG("L4") || !catalog.SupportsMIG("H200") {
		t.Error("SupportsMIG")
	}
	rl := a100.Shared(a100.Allocatable(), 1, "all-1g.10gb")
	if g, s := rl[catalog.ResourceGPU], rl[catalog.MIGResource("1g.10gb")]; g.Value() != 0 || s.Value() != 56 {
		t.Errorf("MIG node: gpu %s, slices %s", g.String(), s.String())
	}
	l4 := cat["g6.12xlarge"]
	if g := l4.Shared(l4.Allocatable(), 4, "")[catalog.ResourceGPU]; g.Value() != 16 {
		t.Errorf("time-sliced g6.12xlarge: gpu %s", g.String())
	}
	if g := l4.Allocatable()[catalog.ResourceGPU]; g.Value() != 4 {
		t.Error("Shared must not change its input")
	}
}
