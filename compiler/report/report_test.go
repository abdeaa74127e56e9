package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/report"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// JSON encodes cells in parallel chunks and splices them in; the bytes
// must be json.MarshalIndent's of the whole document, for the example
// fleets and for generated fleets of many chunks, with refusals of every
// kind (the tricky M fleet) and findings.
func TestJSONMatchesMarshalIndent(t *testing.T) {
	specs, err := filepath.Glob("../../fleets/*")
	if err != nil || len(specs) == 0 {
		t.Fatalf("no example fleets: %v", err)
	}
	dir := t.TempDir()
	for name, f := range map[string][]byte{
		"L.json":        fleetgen.JSON(fleetgen.Generate(1, fleetgen.L, fleetgen.Options{Buildable: true})),
		"M-tricky.json": fleetgen.JSON(fleetgen.Generate(7, fleetgen.M, fleetgen.Options{Tricky: true})),
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, f, 0o644); err != nil {
			t.Fatal(err)
		}
		specs = append(specs, p)
	}
	chunked := false
	for _, spec := range specs {
		res, err := compiler.Compile([]string{spec})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		rep := res.Report
		want, err := json.MarshalIndent(report.NewDocument(rep), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got, err := report.JSONVersion(rep, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: JSON differs from json.MarshalIndent at byte %d: got %q, want %q",
				spec, i, got[max(0, i-40):min(len(got), i+40)], want[max(0, i-40):min(len(want), i+40)])
		}
		chunked = chunked || len(rep.Classes)*len(rep.Pools) > 3*4096
	}
	if !chunked {
		t.Error("no report had several chunks of cells")
	}
	// Strings encoding/json escapes, and fields left out when empty.
	odd := &check.Report{Pools: []string{"p"}, Classes: []string{"c"}, Rows: []sched.Row{*sched.NewRow([]sched.Cell{
		{Class: "c<&>", Pool: "p\"q\\", Fits: true, Type: "ü\u2028", Capacity: -3},
		{Class: "c", Pool: "p", Reasons: []string{"a\tb", "ok"}},
		{Class: "c", Pool: "p", Reasons: []string{}},
	})}}
	got, err := report.JSONVersion(odd, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := json.MarshalIndent(report.NewDocument(odd), "", "  "); !bytes.Equal(got, want) {
		t.Errorf("odd cells: got\n%s\nwant\n%s", got, want)
	}
	empty, err := report.JSONVersion(&check.Report{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := json.MarshalIndent(report.NewDocument(&check.Report{}), "", "  "); !bytes.Equal(empty, want) {
		t.Errorf("empty report: got %s, want %s", empty, want)
	}
}
