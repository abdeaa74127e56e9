package report_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/report"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// sparse is what schemaVersion 2 says of a class.
type sparse struct {
	Class string `json:"class"`
	Lands []struct {
		Pool     string `json:"pool"`
		Type     string `json:"type"`
		Capacity int64  `json:"capacity"`
	} `json:"lands"`
	Refused []struct {
		Reasons []string `json:"reasons"`
		Pools   []string `json:"pools"`
	} `json:"refused"`
}

// The sparse report loses nothing of the matrix: every cell's verdict,
// reasons, credited type and capacity can be read back from it, each pool
// once per class, on the example fleets and on generated ones with every
// kind of refusal.
func TestSparseReportHoldsEveryCell(t *testing.T) {
	specs, err := filepath.Glob("../../fleets/*")
	if err != nil || len(specs) == 0 {
		t.Fatalf("no example fleets: %v", err)
	}
	p := filepath.Join(t.TempDir(), "M-tricky.json")
	if err := os.WriteFile(p, fleetgen.JSON(fleetgen.Generate(7, fleetgen.M, fleetgen.Options{Tricky: true})), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, spec := range append(specs, p) {
		res, err := compiler.Check([]string{spec})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		rep := res.Report
		b, err := report.JSON(rep)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			SchemaVersion int      `json:"schemaVersion"`
			Pools         []string `json:"pools"`
			Classes       []string `json:"classes"`
			Placement     []sparse `json:"placement"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v\n%s", spec, err, b)
		}
		if doc.SchemaVersion != 2 || !slices.Equal(doc.Pools, rep.Pools) || !slices.Equal(doc.Classes, rep.Classes) || len(doc.Placement) != len(rep.Classes) {
			t.Fatalf("%s: version %d, %d pools, %d classes, %d placements", spec, doc.SchemaVersion, len(doc.Pools), len(doc.Classes), len(doc.Placement))
		}
		for i, pl := range doc.Placement {
			seen := 0
			for _, l := range pl.Lands {
				c := rep.Cell(pl.Class, l.Pool)
				if pl.Class != rep.Classes[i] || c == nil || !c.Fits || c.Type != l.Type || c.Capacity != l.Capacity {
					t.Errorf("%s: %s lands on %+v, the cell says %+v", spec, pl.Class, l, c)
				}
				seen++
			}
			for _, f := range pl.Refused {
				for _, pool := range f.Pools {
					c := rep.Cell(pl.Class, pool)
					if c == nil || c.Fits || !slices.Equal(c.Reasons, f.Reasons) && len(c.Reasons)+len(f.Reasons) > 0 {
						t.Errorf("%s: %s refused by %s for %q, the cell says %+v", spec, pl.Class, pool, f.Reasons, c)
					}
					seen++
				}
			}
			if seen != len(rep.Pools) {
				t.Errorf("%s: %s accounts for %d pools of %d", spec, pl.Class, seen, len(rep.Pools))
			}
		}
	}
}

// Version 1, the whole matrix, is still written on request.
func TestSchemaVersion1OnRequest(t *testing.T) {
	res, err := compiler.Check([]string{"../../fleets/platform"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := report.JSONVersion(res.Report, 1)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SchemaVersion int               `json:"schemaVersion"`
		Cells         []json.RawMessage `json:"cells"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.SchemaVersion != 1 || len(doc.Cells) != len(res.Report.AllCells()) {
		t.Fatalf("version 1: %v, version %d, %d cells", err, doc.SchemaVersion, len(doc.Cells))
	}
	if _, err := report.JSONVersion(res.Report, 3); err == nil {
		t.Error("version 3 was written")
	}
}
