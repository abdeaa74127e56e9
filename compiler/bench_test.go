package compiler_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/load"
	"github.com/gpufleet/gpufleet/compiler/render"
	"github.com/gpufleet/gpufleet/compiler/write"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// BenchmarkBuild is what 'gpufleet build' does per example fleet: compile
// and write the tree (into an existing directory, as in CI).
func BenchmarkBuild(b *testing.B) {
	for _, dir := range exampleFleets(b) {
		b.Run(filepath.Base(dir), func(b *testing.B) {
			out := filepath.Join(b.TempDir(), "out")
			b.ReportAllocs()
			for b.Loop() {
				res, err := compiler.Compile([]string{dir})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := write.Tree(out, res.Tree); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStages splits a build into load (CUE), derive and render.
func BenchmarkStages(b *testing.B) {
	for _, dir := range exampleFleets(b) {
		name := filepath.Base(dir)
		src, err := load.Load([]string{dir})
		if err != nil {
			b.Fatal(err)
		}
		cat := catalog.New(src.Fleet.InstanceTypes)
		d := derive.Derive(src.Fleet, cat)
		b.Run("load/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := load.Load([]string{dir}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("derive/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				derive.Derive(src.Fleet, cat)
			}
		})
		b.Run("render/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := render.Render(d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheck measures the placement checker alone on a generated
// M-size fleet, reporting class × pool pairs evaluated per second.
func BenchmarkCheck(b *testing.B) {
	f := filepath.Join(b.TempDir(), "fleet.json")
	if err := os.WriteFile(f, fleetgen.JSON(fleetgen.Generate(7, fleetgen.M, fleetgen.Options{Tricky: true})), 0o644); err != nil {
		b.Fatal(err)
	}
	src, err := load.Load([]string{f})
	if err != nil {
		b.Fatal(err)
	}
	cat := catalog.New(src.Fleet.InstanceTypes)
	d := derive.Derive(src.Fleet, cat)
	tree, err := render.Render(d)
	if err != nil {
		b.Fatal(err)
	}
	in := compiler.Intent(d)
	pairs := float64(len(d.Classes) * len(d.Pools))
	b.Run("run", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := check.Run(tree, cat, in); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(pairs*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
	})
	// The node filters alone, on the cluster read back once.
	cl, err := check.FromTree(tree, cat)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("evaluate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range cl.Classes {
				for j := range cl.Pools {
					check.Evaluate(&cl.Classes[i], &cl.Pools[j])
				}
			}
		}
		b.ReportMetric(pairs*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
	})
}
