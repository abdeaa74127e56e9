package compiler_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// The checker rules most cells out wholesale, by an index of the pools'
// labels and taints, evaluates only the rest node by node, and keeps only
// those (sched.Row). Every cell, as the report and the row give it, must
// be the one evaluating every node gives: on the example
// fleets, and on generated ones with the escape hatches (taints of every
// effect, tolerations right and wrong, Gt/Lt and multi-term affinity on
// labels present or missing), with the whole spec, and buildable.
func TestIndexedCellsAreEvaluated(t *testing.T) {
	specs := exampleFleets(t)
	dir := t.TempDir()
	gen := map[string]*fleetgenFleet{}
	for seed := uint64(1); seed <= 3; seed++ {
		gen[fmt.Sprintf("tricky-%d", seed)] = &fleetgenFleet{seed, fleetgen.M, fleetgen.Options{Tricky: true}}
		gen[fmt.Sprintf("full-%d", seed)] = &fleetgenFleet{seed, fleetgen.M, fleetgen.Options{Full: true}}
	}
	gen["buildable-L"] = &fleetgenFleet{1, fleetgen.L, fleetgen.Options{Buildable: true}}
	for name, g := range gen {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, fleetgen.JSON(fleetgen.Generate(g.seed, g.size, g.opts)), 0o644); err != nil {
			t.Fatal(err)
		}
		specs = append(specs, p)
	}
	for _, spec := range specs {
		res, err := compiler.Check([]string{spec})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		cl, err := res.Cluster()
		if err != nil {
			t.Fatal(err)
		}
		rep, bad, ruled := res.Report, 0, 0
		for i := range cl.Classes {
			row := rep.Row(cl.Classes[i].Name)
			if row == nil || row.Len() != len(cl.Pools) {
				t.Fatalf("%s: class %s has no row of %d pools", filepath.Base(spec), cl.Classes[i].Name, len(cl.Pools))
			}
			ruled += row.Len() - len(row.Evaluated)
			var lands []string
			for j := range cl.Pools {
				want := sched.Evaluate(&cl.Classes[i], &cl.Pools[j])
				want.Nodes = nil
				// The report's lookup, the row's, and the report's whole
				// matrix (as schemaVersion 1 writes it) give the same cell.
				for how, got := range map[string]sched.Cell{
					"Report.Cell": *rep.Cell(cl.Classes[i].Name, cl.Pools[j].Name),
					"Row.Cell":    row.Cell(j),
				} {
					if len(want.Reasons) == 0 && len(got.Reasons) == 0 {
						want.Reasons, got.Reasons = nil, nil
					}
					if !reflect.DeepEqual(got, want) && bad < 5 {
						bad++
						t.Errorf("%s: %s of class %s on pool %s:\n got %+v\nwant %+v", filepath.Base(spec), how, want.Class, want.Pool, got, want)
					}
				}
				if fits := rep.Fits(cl.Classes[i].Name, cl.Pools[j].Name); (fits != want.Fits || row.Fits(j) != want.Fits) && bad < 5 {
					bad++
					t.Errorf("%s: class %s on pool %s: Fits %v, want %v", filepath.Base(spec), want.Class, want.Pool, fits, want.Fits)
				}
				if want.Fits {
					lands = append(lands, want.Pool)
				}
			}
			// Queue derivation asks for the pools a class lands on at once.
			if got := rep.LandsOn(cl.Classes[i].Name); !slices.Equal(got, lands) && bad < 5 {
				bad++
				t.Errorf("%s: class %s LandsOn %v, want %v", filepath.Base(spec), cl.Classes[i].Name, got, lands)
			}
		}
		if all := rep.AllCells(); len(all) != len(cl.Classes)*len(cl.Pools) {
			t.Errorf("%s: AllCells has %d cells, want %d", filepath.Base(spec), len(all), len(cl.Classes)*len(cl.Pools))
		}
		t.Logf("%s: %d of %d cells ruled out", filepath.Base(spec), ruled, len(cl.Classes)*len(cl.Pools))
	}
}

type fleetgenFleet struct {
	seed uint64
	size fleetgen.Size
	opts fleetgen.Options
}
