package load_test

import (
	"path/filepath"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/load"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// Entries keep the positions of pools, classes and tenants that the CUE
// values gave, and nothing else.
func TestEntriesKeepPositions(t *testing.T) {
	dir, err := filepath.Abs("../../fleets/research")
	if err != nil {
		t.Fatal(err)
	}
	src, err := load.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	e := src.Entries()
	n := 0
	for _, section := range []struct {
		name  string
		names []string
	}{{"pools", spec.Keys(src.Fleet.Pools)}, {"classes", spec.Keys(src.Fleet.Classes)}, {"tenants", spec.Keys(src.Fleet.Tenants)}} {
		for _, name := range section.names {
			want := src.Pos(section.name, name)
			if want.File == "" {
				t.Fatalf("%s.%s has no position", section.name, name)
			}
			if got := e.Pos(section.name, name); got != want {
				t.Errorf("%s.%s: entry at %s, source at %s", section.name, name, got, want)
			}
			n++
		}
	}
	if n < 10 {
		t.Fatalf("only %d entries in the research fleet", n)
	}
	if got := e.Pos("pools", "no-such-pool"); got.File != "" {
		t.Errorf("an unknown entry has a position: %s", got)
	}
}
