package fleetgen_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
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
		for _, c := range res.Report.AllCells() {
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

// Buildable fleets pass the checker, so a benchmark of 'gpufleet build'
// writes the whole tree, and they hold what makes a fleet realistic. XL
// is built by 'make bench', whose build fails on any checker error.
func TestBuildableFleets(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		seed uint64
		size fleetgen.Size
	}{{1, fleetgen.S}, {2, fleetgen.S}, {3, fleetgen.S}, {1, fleetgen.M}, {2, fleetgen.M}, {1, fleetgen.L}}
	for _, tc := range cases {
		f := fleetgen.Generate(tc.seed, tc.size, fleetgen.Options{Buildable: true})
		path := filepath.Join(dir, "fleet.json")
		if err := os.WriteFile(path, fleetgen.JSON(f), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := compiler.Compile([]string{path})
		if err != nil {
			t.Fatalf("%s seed %d: %v", tc.size.Name, tc.seed, err)
		}
		for _, fd := range res.Report.Findings {
			if fd.Severity == check.Error {
				t.Errorf("%s seed %d: %s %s: %s", tc.size.Name, tc.seed, fd.Check, fd.Class, fd.Message)
			}
		}
		if tc.size == fleetgen.S {
			continue // too small to hold every feature
		}
		products, spot, gangs, spreads, borrow := map[string]bool{}, 0, 0, 0, 0
		for _, c := range f.Classes {
			if c.GPU != nil {
				products[c.GPU.Products[0]] = true
			}
			if c.Gang != nil {
				gangs++
			}
			if c.Spread != nil && c.Spread.Zones == "required" {
				spreads++
			}
		}
		for _, p := range f.Pools {
			if p.Capacity == "spot" {
				spot++
			}
		}
		for _, tn := range f.Tenants {
			if tn.Cohort != "" && tn.Borrow != nil && tn.Quota != nil {
				borrow++
			}
		}
		if len(products) < 4 || spot == 0 || spot == len(f.Pools) || gangs == 0 || spreads == 0 || borrow == 0 || len(f.Cohorts) < 2 {
			t.Errorf("%s seed %d: %d GPU products, %d of %d pools spot, %d gangs, %d hard spreads, %d borrowing tenants, %d cohorts",
				tc.size.Name, tc.seed, len(products), spot, len(f.Pools), gangs, spreads, borrow, len(f.Cohorts))
		}
	}
}
