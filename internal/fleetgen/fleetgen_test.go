package fleetgen_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// Every generated fleet is a valid spec, and a seed always gives the same one.
func TestGeneratedFleetsCompile(t *testing.T) {
	dir := t.TempDir()
	landed, refused := 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		data := fleetgen.JSON(fleetgen.Generate(seed, fleetgen.S, fleetgen.Options{Tricky: seed%2 == 0}))
		if !bytes.Equal(data, fleetgen.JSON(fleetgen.Generate(seed, fleetgen.S, fleetgen.Options{Tricky: seed%2 == 0}))) {
			t.Fatalf("seed %d: two different fleets", seed)
		}
		f := filepath.Join(dir, "fleet.json")
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := compiler.Compile([]string{f})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, c := range res.Report.Cells {
			if c.Fits {
				landed++
			} else {
				refused++
			}
		}
	}
	// A generator that only produced fits (or only refusals) would test
	// half of the checker.
	if landed == 0 || refused == 0 {
		t.Fatalf("landed %d, refused %d: want both", landed, refused)
	}
	t.Logf("class × pool pairs: %d land, %d refused", landed, refused)
}
