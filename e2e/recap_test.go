package e2e

import (
	"fmt"
	"testing"
)

// failTB records what a test would report, without failing one.
type failTB struct {
	testing.TB
	got []string
}

func (f *failTB) Helper()                   {}
func (f *failTB) Errorf(s string, a ...any) { f.got = append(f.got, "E "+fmt.Sprintf(s, a...)) }
func (f *failTB) Fatalf(s string, a ...any) { f.got = append(f.got, "F "+fmt.Sprintf(s, a...)) }
func (f *failTB) Error(a ...any)            { f.got = append(f.got, "E "+fmt.Sprint(a...)) }
func (f *failTB) Fatal(a ...any)            { f.got = append(f.got, "F "+fmt.Sprint(a...)) }

// TestRecap: each way a fleet fails reaches the test and the recap, under
// the fleet's name, a message's later lines indented under it.
func TestRecap(t *testing.T) {
	rec := &recap{}
	tb := &failTB{}
	a := &fleetT{TB: tb, fleet: "platform", rec: rec}
	a.Errorf("class %s: disagrees:\n  pod a-0 pending", "a")
	a.Fatal("applied ", 3)
	b := &fleetT{TB: tb, fleet: "research", rec: rec}
	b.Fatalf("node agents: %v", "did not settle")
	b.Error("cleanup")
	want := "platform: class a: disagrees:\n      pod a-0 pending\nplatform: applied 3\nresearch: node agents: did not settle\nresearch: cleanup"
	if got := rec.String(); got != want {
		t.Errorf("recap:\n%s\nwant:\n%s", got, want)
	}
	wantTB := []string{"E class a: disagrees:\n  pod a-0 pending", "F applied 3", "F node agents: did not settle", "E cleanup"}
	if fmt.Sprint(tb.got) != fmt.Sprint(wantTB) {
		t.Errorf("reported %q, want %q", tb.got, wantTB)
	}
}
