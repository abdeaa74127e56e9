package compiler_test

import (
	"path/filepath"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/load"
	"github.com/gpufleet/gpufleet/compiler/render"
	"github.com/gpufleet/gpufleet/compiler/write"
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
