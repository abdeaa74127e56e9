package compiler_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/readback"
	"github.com/gpufleet/gpufleet/compiler/check/registry"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/load"
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

// generated writes a buildable generated fleet of the given size.
func generated(b *testing.B, size fleetgen.Size) string {
	f := filepath.Join(b.TempDir(), "fleet-"+size.Name+".json")
	if err := os.WriteFile(f, fleetgen.JSON(fleetgen.Generate(1, size, fleetgen.Options{Buildable: true})), 0o644); err != nil {
		b.Fatal(err)
	}
	return f
}

// BenchmarkStages times each stage of a build of a generated fleet, in
// pipeline order: CUE evaluation, decoding, derive (with validate and
// verify), render, check (with the Kueue queues and the report) and
// writing a new tree.
func BenchmarkStages(b *testing.B) {
	for _, size := range []fleetgen.Size{fleetgen.S, fleetgen.M, fleetgen.L} {
		spec := generated(b, size)
		res, err := compiler.Compile([]string{spec})
		if err != nil {
			b.Fatal(err)
		}
		if n := res.Report.Errors(); n > 0 {
			b.Fatalf("%s: %d checker errors", size.Name, n)
		}
		b.Run("evaluate/"+size.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := load.Evaluate([]string{spec}); err != nil {
					b.Fatal(err)
				}
			}
		})
		evaluated, err := load.Evaluate([]string{spec})
		if err != nil {
			b.Fatal(err)
		}
		if err := evaluated.Decode(); err != nil {
			b.Fatal(err)
		}
		b.Run("decode/"+size.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := evaluated.Decode(); err != nil {
					b.Fatal(err)
				}
			}
		})
		stage := func(name string, f func(*compiler.Result) error) {
			b.Run(name+"/"+size.Name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := f(res); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		stage("derive", func(r *compiler.Result) error { return compiler.DeriveStage(r, evaluated) })
		stage("render", compiler.RenderStage)
		// check, as before the queue pass was named: the checker, the
		// ClusterQueues and their check, and the report.
		stage("check", func(r *compiler.Result) error {
			for _, f := range []func(*compiler.Result) error{compiler.CheckStage, compiler.QueueStage, compiler.ReportStage} {
				if err := f(r); err != nil {
					return err
				}
			}
			return nil
		})
		b.Run("write/"+size.Name, func(b *testing.B) {
			dir := b.TempDir()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				if _, err := write.Tree(filepath.Join(dir, strconv.Itoa(i)), res.Tree); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheck measures the placement checker, reporting class × pool
// pairs evaluated per second, on a generated L fleet and on an M fleet with
// the tricky escape hatches (more pairs get as far as the resource filter):
// run is the whole checker (reading the tree back included), evaluate the
// node filters alone on the cluster read back once.
func BenchmarkCheck(b *testing.B) {
	tricky := filepath.Join(b.TempDir(), "tricky.json")
	if err := os.WriteFile(tricky, fleetgen.JSON(fleetgen.Generate(7, fleetgen.M, fleetgen.Options{Tricky: true})), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, fleet := range []struct{ name, spec string }{{"L", generated(b, fleetgen.L)}, {"M-tricky", tricky}} {
		res, err := compiler.Compile([]string{fleet.spec})
		if err != nil {
			b.Fatal(err)
		}
		in := compiler.Intent(res.Fleet)
		pairs := float64(len(res.Fleet.Classes) * len(res.Fleet.Pools))
		b.Run("run/"+fleet.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				cl, err := readback.FromTree(res.Typed(), res.Groups, res.Catalog)
				if err == nil {
					err = readback.WithLimitRanges(cl, res.Typed(), in.Namespaces())
				}
				if err != nil {
					b.Fatal(err)
				}
				check.RunCluster(cl, in, registry.Checks)
			}
			b.ReportMetric(pairs*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
		cl, err := res.Cluster()
		if err != nil {
			b.Fatal(err)
		}
		b.Run("evaluate/"+fleet.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for i := range cl.Classes {
					for j := range cl.Pools {
						sched.Evaluate(&cl.Classes[i], &cl.Pools[j])
					}
				}
			}
			b.ReportMetric(pairs*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
}
