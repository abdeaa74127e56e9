package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// The bounds refuse a fleet past either limit and accept one at it: the
// class × pool pairs the checker evaluates node by node (counted by the
// index before the rows are made, held here to the rows), and the pools
// the tenants' queued classes land on. The example fleets and the
// generated L fleet are far within both; XL (not compiled here: 7 s and
// 1 GB) has 5,420 pairs to evaluate and 19,283 pins, 46 and 13 times
// under the limits.
func TestDenseFleetBound(t *testing.T) {
	dir := t.TempDir()
	specs, err := filepath.Glob("../fleets/*")
	if err != nil || len(specs) == 0 {
		t.Fatalf("no example fleets: %v", err)
	}
	for _, d := range []struct{ pools, classes, tenants int }{{12, 10, 1}, {30, 4, 3}, {3, 25, 2}} {
		p := filepath.Join(dir, fmt.Sprintf("dense-%dx%dx%d", d.pools, d.classes, d.tenants))
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "fleet.cue"), fleetgen.Dense(d.pools, d.classes, d.tenants), 0o644); err != nil {
			t.Fatal(err)
		}
		specs = append(specs, p)
	}
	l := filepath.Join(dir, "L.json")
	if err := os.WriteFile(l, fleetgen.JSON(fleetgen.Generate(1, fleetgen.L, fleetgen.Options{Buildable: true})), 0o644); err != nil {
		t.Fatal(err)
	}
	specs = append(specs, l)

	for _, spec := range specs {
		name := filepath.Base(spec)
		r, err := Check([]string{spec})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		evaluated, fits := 0, map[string]int{}
		for i, row := range r.Report.Rows {
			evaluated += len(row.Evaluated)
			for _, c := range row.Evaluated {
				if c.Fits {
					fits[r.Report.Classes[i]]++
				}
			}
		}
		pins := 0
		for _, q := range KueueIntent(r.Fleet) {
			for _, c := range q.Classes {
				pins += fits[c]
			}
		}
		if evaluated > MaxEvaluated/10 || pins > MaxPinned/10 {
			t.Errorf("%s: %d pairs evaluated and %d pins, within a tenth of the bounds (%d, %d)", name, evaluated, pins, MaxEvaluated, MaxPinned)
		}
		if strings.HasPrefix(name, "dense-") {
			var p, c, tn int
			fmt.Sscanf(name, "dense-%dx%dx%d", &p, &c, &tn)
			if evaluated != p*c || pins != p*c*tn {
				t.Errorf("%s: %d pairs evaluated and %d pins, want %d and %d", name, evaluated, pins, p*c, p*c*tn)
			}
		}
		for _, tc := range []struct {
			what  string
			limit int
			bound func(limit int) error
			total int
			path  string
		}{
			{"evaluated", evaluated, func(n int) error { return boundEvaluated(r.cluster, r.Entries, n) }, evaluated, "classes"},
			{"evaluated", evaluated - 1, func(n int) error { return boundEvaluated(r.cluster, r.Entries, n) }, evaluated, "classes"},
			{"pinned", pins, func(n int) error { return boundPinned(r.Report, KueueIntent(r.Fleet), r.Entries, n) }, pins, "tenants"},
			{"pinned", pins - 1, func(n int) error { return boundPinned(r.Report, KueueIntent(r.Fleet), r.Entries, n) }, pins, "tenants"},
		} {
			err := tc.bound(tc.limit)
			if tc.limit >= tc.total {
				if err != nil {
					t.Errorf("%s: %s at its limit %d: %v", name, tc.what, tc.limit, err)
				}
				continue
			}
			l, ok := err.(diag.List)
			if !ok || len(l) != 1 {
				t.Errorf("%s: %s past its limit %d: %v, want one diagnostic", name, tc.what, tc.limit, err)
				continue
			}
			d := l[0]
			if d.Path != tc.path || d.Pos.Line == 0 ||
				!strings.Contains(d.Msg, " "+count(tc.total)+" ") || !strings.Contains(d.Msg, "the "+count(tc.limit)+" ") {
				t.Errorf("%s: %s past its limit %d: %s, want it at %s's position naming %s and the limit", name, tc.what, tc.limit, d, tc.path, count(tc.total))
			}
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 251001: "251,001", 4500000: "4,500,000"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

// The docs state the limits the code has.
func TestDenseBoundDocumented(t *testing.T) {
	for _, doc := range []string{"../docs/reliability.md", "../docs/spec.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			phrase string
			want   int
		}{
			{`at most ([\d,]+) class × pool\s+pairs`, MaxEvaluated},
			{`at most ([\d,]+)\s+placements`, MaxPinned},
		} {
			m := regexp.MustCompile(f.phrase).FindSubmatch(b)
			if m == nil || string(m[1]) != count(f.want) {
				t.Errorf("%s: %q says %q, the code %s", doc, f.phrase, m, count(f.want))
			}
		}
	}
}
