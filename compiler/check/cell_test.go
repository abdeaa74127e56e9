package check

import "testing"

// Cell finds a verdict by index in Run's layout, and by search in any other.
func TestReportCell(t *testing.T) {
	r := &Report{Pools: []string{"a", "b", "c"}, Classes: []string{"x", "y"}}
	for _, c := range r.Classes {
		for _, p := range r.Pools {
			r.Cells = append(r.Cells, Cell{Class: c, Pool: p, Capacity: int64(len(r.Cells))})
		}
	}
	if got := r.Cell("y", "b"); got == nil || got.Class != "y" || got.Pool != "b" || got.Capacity != 4 {
		t.Fatalf("Cell(y, b) = %+v, want the fifth cell", got)
	}
	if got := r.Cell("y", "b"); got != &r.Cells[4] {
		t.Error("Cell must return a pointer into Cells, so callers see one verdict")
	}
	if r.Cell("z", "a") != nil || r.Cell("x", "d") != nil {
		t.Error("unknown names must give nil")
	}
	// Laid out otherwise (a report read back and filtered, say): searched.
	r.Cells[0], r.Cells[5] = r.Cells[5], r.Cells[0]
	if got := r.Cell("y", "c"); got == nil || got.Class != "y" || got.Pool != "c" {
		t.Fatalf("Cell(y, c) after reordering = %+v", got)
	}
	// Pools added after a first lookup are indexed again.
	r.Pools = append(r.Pools, "d")
	r.Cells = nil
	for _, c := range r.Classes {
		for _, p := range r.Pools {
			r.Cells = append(r.Cells, Cell{Class: c, Pool: p})
		}
	}
	if got := r.Cell("y", "d"); got == nil || got.Class != "y" || got.Pool != "d" {
		t.Fatalf("Cell(y, d) with a fourth pool = %+v", got)
	}
}

// Cells share their reason sets; an append to one must not show in another.
func TestInternedReasons(t *testing.T) {
	w := &worker{}
	a := w.intern([]string{"x", "y"})
	b := w.intern([]string{"x", "y"})
	if &a[0] != &b[0] {
		t.Fatal("equal reason sets are not shared")
	}
	a = append(a, "z")
	if len(b) != 2 || b[0] != "x" || b[1] != "y" {
		t.Fatalf("an append to one cell's reasons changed another's: %v", b)
	}
	if c := w.intern([]string{"y"}); len(c) != 1 || c[0] != "y" {
		t.Fatalf("intern(y) = %v", c)
	}
	_ = a
}
