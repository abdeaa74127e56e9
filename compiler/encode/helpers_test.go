package encode_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/testrender"
)

func renderedFleets(t *testing.T) map[string]testrender.Fleet { return testrender.Examples(t) }

func renderFleet(t *testing.T, path string) testrender.Fleet { return testrender.Render(t, path) }

// generatedSpec writes a generated fleet's spec and returns its path.
func generatedSpec(tb testing.TB, seed uint64, size fleetgen.Size, opts fleetgen.Options) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), size.Name+".json")
	if err := os.WriteFile(p, fleetgen.JSON(fleetgen.Generate(seed, size, opts)), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// compiledFiles compiles a fleet and returns the objects of each of its
// YAML files, in path order: everything the whole pipeline encodes, the
// ClusterQueues included.
func compiledFiles(tb testing.TB, spec string) [][]any {
	tb.Helper()
	res, err := compiler.Compile([]string{spec})
	if err != nil {
		tb.Fatal(err)
	}
	var files [][]any
	for _, p := range tree.Tree(res.Tree).Paths() {
		if objs, ok := res.Objects[p]; ok {
			files = append(files, objs)
		}
	}
	return files
}
