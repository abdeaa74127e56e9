package compiler_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/report"
	"github.com/gpufleet/gpufleet/compiler/write"
)

// Check leaves the report's files and the manifest out of the tree and
// proves the same: the rest of the tree, the report, and the file count
// are Compile's.
func TestCheckIsCompileWithoutReportFiles(t *testing.T) {
	for _, dir := range exampleFleets(t) {
		full, err := compiler.Compile([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		checked, err := compiler.Check([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := checked.Files(), full.Files(); got != want || want != len(full.Tree) {
			t.Errorf("%s: Check counts %d files, Compile %d (tree %d)", dir, got, want, len(full.Tree))
		}
		for _, p := range []string{report.JSONPath, report.MarkdownPath, report.HTMLPath, write.ManifestPath} {
			if _, ok := checked.Tree[p]; ok {
				t.Errorf("%s: Check wrote %s", dir, p)
			}
			delete(full.Tree, p)
		}
		if !reflect.DeepEqual(checked.Tree, full.Tree) {
			t.Errorf("%s: Check's tree differs from Compile's", dir)
		}
		a, _ := report.JSON(checked.Report)
		b, _ := report.JSON(full.Report)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: Check's report differs from Compile's", dir)
		}
	}
}
