package sched

import "testing"

// Cells share their reason sets; an append to one must not show in another.
func TestInternedReasons(t *testing.T) {
	w := &Worker{}
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
	for _, rs := range refusedBy[1:] {
		if cap(rs) != len(rs) {
			t.Errorf("ruled-out reasons %v are not clipped", rs)
		}
	}
}
