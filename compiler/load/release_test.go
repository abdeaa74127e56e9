package load_test

import (
	"path/filepath"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/load"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// After Release, the positions of pools, classes and tenants are those the
// CUE values gave; other paths have none, and the CUE value is gone.
func TestReleaseKeepsPositions(t *testing.T) {
	dir, err := filepath.Abs("../../fleets/research")
	if err != nil {
		t.Fatal(err)
	}
	src, err := load.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, section := range []struct {
		name  string
		names []string
	}{{"pools", spec.Keys(src.Fleet.Pools)}, {"classes", spec.Keys(src.Fleet.Classes)}, {"tenants", spec.Keys(src.Fleet.Tenants)}} {
		for _, n := range section.names {
			pos := src.Pos(section.name, n)
			if pos.File == "" {
				t.Fatalf("%s.%s has no position before Release", section.name, n)
			}
			want[section.name+"\x00"+n] = pos.String()
		}
	}
	deep := src.Pos("classes", spec.Keys(src.Fleet.Classes)[0], "priority")
	if deep.File == "" {
		t.Fatal("a nested field has no position before Release")
	}
	src.Release()
	for k, w := range want {
		var section, name string
		for i := range k {
			if k[i] == 0 {
				section, name = k[:i], k[i+1:]
			}
		}
		if got := src.Pos(section, name).String(); got != w {
			t.Errorf("%s.%s: after Release %s, before %s", section, name, got, w)
		}
	}
	if got := src.Pos("classes", spec.Keys(src.Fleet.Classes)[0], "priority"); got.File != "" {
		t.Errorf("a nested field kept a position after Release: %s", got)
	}
	if src.Value.Exists() {
		t.Error("Release kept the CUE value")
	}
}
