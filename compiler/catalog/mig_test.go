package catalog

import (
	"slices"
	"testing"
)

func TestMIG(t *testing.T) {
	cat := New(nil)
	a100 := cat["p4de.24xlarge"]
	if p, ok := MIGLayout(a100.GPU, "all-3g.40gb"); !ok || p.PerGPU != 2 {
		t.Errorf("A100 80GB all-3g.40gb = %+v %v", p, ok)
	}
	if _, ok := MIGLayout(cat["p4d.24xlarge"].GPU, "all-3g.40gb"); ok {
		t.Error("A100 40GB has no 3g.40gb")
	}
	if got := LayoutsWithProfile("1g.10gb"); !slices.Equal(got, []string{"all-1g.10gb"}) {
		t.Errorf("LayoutsWithProfile(1g.10gb) = %v", got)
	}
	if SupportsMIG("L4") || !SupportsMIG("H200") {
		t.Error("SupportsMIG")
	}
	rl := a100.Shared(a100.Allocatable(), 1, "all-1g.10gb")
	if g, s := rl[ResourceGPU], rl[MIGResource("1g.10gb")]; g.Value() != 0 || s.Value() != 56 {
		t.Errorf("MIG node: gpu %s, slices %s", g.String(), s.String())
	}
	l4 := cat["g6.12xlarge"]
	if g := l4.Shared(l4.Allocatable(), 4, "")[ResourceGPU]; g.Value() != 16 {
		t.Errorf("time-sliced g6.12xlarge: gpu %s", g.String())
	}
	if g := l4.Allocatable()[ResourceGPU]; g.Value() != 4 {
		t.Error("Shared must not change its input")
	}
}
