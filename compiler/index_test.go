package compiler_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// The checker rules most cells out wholesale, by an index of the pools'
// labels and taints, and evaluates only the rest node by node. Every
// cell must be the one evaluating every node gives: on the example
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
		bad := 0
		for i := range cl.Classes {
			for j := range cl.Pools {
				want := check.Evaluate(&cl.Classes[i], &cl.Pools[j])
				want.Nodes = nil
				got := *res.Report.Cell(cl.Classes[i].Name, cl.Pools[j].Name)
				if len(want.Reasons) == 0 && len(got.Reasons) == 0 {
					want.Reasons, got.Reasons = nil, nil
				}
				if !reflect.DeepEqual(got, want) && bad < 5 {
					bad++
					t.Errorf("%s: class %s on pool %s:\n got %+v\nwant %+v", filepath.Base(spec), want.Class, want.Pool, got, want)
				}
			}
		}
	}
}

type fleetgenFleet struct {
	seed uint64
	size fleetgen.Size
	opts fleetgen.Options
}
