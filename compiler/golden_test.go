package compiler_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

var update = flag.Bool("update", false, "rewrite golden/ from fleets/")

// exampleFleets lists fleets/*; a missing or empty fleets/ is a failure,
// never a silent pass.
func exampleFleets(t testing.TB) []string {
	t.Helper()
	dirs, err := filepath.Glob("../fleets/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no example fleets under ../fleets: %v", err)
	}
	return dirs
}

func compile(t testing.TB, paths ...string) *compiler.Result {
	t.Helper()
	res, err := compiler.Compile(paths)
	if err != nil {
		t.Fatalf("compile %v:\n%v", paths, err)
	}
	return res
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		got[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return got
}

func asStrings(tree tree.Tree) map[string]string {
	m := make(map[string]string, len(tree))
	for p, b := range tree {
		m[p] = string(b)
	}
	return m
}

// TestGolden compiles every example fleet and compares the whole tree with
// golden/<fleet>. Run with -update to regenerate.
func TestGolden(t *testing.T) {
	for _, dir := range exampleFleets(t) {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			res := compile(t, dir)
			golden := filepath.Join("..", "golden", name)
			if *update {
				if err := os.RemoveAll(golden); err != nil {
					t.Fatal(err)
				}
				for p, b := range res.Tree {
					f := filepath.Join(golden, filepath.FromSlash(p))
					if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(f, b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			if diff := cmp.Diff(readTree(t, golden), asStrings(res.Tree)); diff != "" {
				t.Errorf("golden/%s differs (-want +got); run 'make golden' if the change is intended:\n%s", name, diff)
			}
		})
	}
}

// TestDeterministic compiles every example fleet and a generated M-size
// fleet (with the tricky escape hatches) 20 times each, cycling GOMAXPROCS
// through 1..4, and requires the same set of files with identical bytes.
func TestDeterministic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	gen := filepath.Join(t.TempDir(), "gen-m.json")
	if err := os.WriteFile(gen, fleetgen.JSON(fleetgen.Generate(11, fleetgen.M, fleetgen.Options{Tricky: true})), 0o644); err != nil {
		t.Fatal(err)
	}
	const runs = 20
	for _, spec := range append(exampleFleets(t), gen) {
		t.Run(filepath.Base(spec), func(t *testing.T) {
			runtime.GOMAXPROCS(1)
			first := compile(t, spec).Tree
			if len(first) == 0 {
				t.Fatal("empty tree")
			}
			for i := 1; i < runs; i++ {
				procs := i%4 + 1
				runtime.GOMAXPROCS(procs)
				again := compile(t, spec).Tree
				for p := range again {
					if _, ok := first[p]; !ok {
						t.Fatalf("run %d (GOMAXPROCS=%d): extra file %s", i, procs, p)
					}
				}
				for p, b := range first {
					got, ok := again[p]
					if !ok {
						t.Fatalf("run %d (GOMAXPROCS=%d): %s missing", i, procs, p)
					}
					if !bytes.Equal(b, got) {
						t.Fatalf("run %d (GOMAXPROCS=%d): %s differs:\n%s", i, procs, p, cmp.Diff(string(b), string(got)))
					}
				}
			}
		})
	}
}
