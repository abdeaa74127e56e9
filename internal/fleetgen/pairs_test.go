package fleetgen_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// pairTable counts the features of every class of the fleets as if each
// reached its row's pool (class-rN and victim-rN run on pool-rN).
func pairTable(fleets []*spec.Fleet) fleetgen.PairTable {
	table := fleetgen.PairTable{}
	for _, f := range fleets {
		for _, tn := range spec.Keys(f.Tenants) {
			for _, c := range f.Tenants[tn].Classes {
				i := strings.LastIndex(c, "-r")
				if i < 0 {
					continue // not a row's class
				}
				row := c[i+2:]
				table.Add(fleetgen.Features(f, tn, c, "pool-r"+row))
			}
		}
	}
	return table
}

// The pair fleets cover every possible pair of features, are the same for
// a seed, and are valid specs.
func TestPairFleetsCoverEveryPair(t *testing.T) {
	fleets := fleetgen.PairFleets(1, fleetgen.PairOptions{Rows: 8})
	again := fleetgen.PairFleets(1, fleetgen.PairOptions{Rows: 8})
	rows := 0
	dir := t.TempDir()
	for i, f := range fleets {
		data := fleetgen.JSON(f)
		if !bytes.Equal(data, fleetgen.JSON(again[i])) {
			t.Fatalf("fleet %d: two different fleets from one seed", i+1)
		}
		rows += len(f.Pools)
		p := filepath.Join(dir, "fleet.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := compiler.Compile([]string{p}); err != nil {
			t.Fatalf("pair fleet %d: %v", i+1, err)
		}
	}
	table := pairTable(fleets)
	if empty := table.Empty(); len(empty) > 0 {
		t.Errorf("%d possible pairs no row covers: %v", len(empty), empty)
	}
	t.Logf("%d rows in %d fleets cover %d possible pairs of %d features:\n%s", rows, len(fleets), len(fleetgen.Pairs()), len(fleetgen.AllFeatures), table)
}

// The deliberate gap: fleets generated without MPS leave every pair of
// MPS empty, and the table says so.
func TestPairTableFindsARemovedFeature(t *testing.T) {
	table := pairTable(fleetgen.PairFleets(1, fleetgen.PairOptions{Rows: 8, Without: fleetgen.FeatMPS}))
	var mps int
	for _, p := range table.Empty() {
		if p[0] != fleetgen.FeatMPS && p[1] != fleetgen.FeatMPS {
			t.Errorf("pair %s empty, though only MPS was left out", p)
		}
		mps++
	}
	if mps == 0 {
		t.Fatal("MPS left out, and no pair of it is empty")
	}
}
