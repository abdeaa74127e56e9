package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// fleetT is a fleet's *testing.T that also keeps each failure's message
// for the recap TestEndToEnd prints last. The control plane's logs follow
// every fleet's output, and a CI log often shows only its end.
type fleetT struct {
	testing.TB
	fleet string
	rec   *recap
}

func (f *fleetT) Errorf(format string, args ...any) {
	f.TB.Helper()
	f.rec.add(f.fleet, fmt.Sprintf(format, args...))
	f.TB.Errorf(format, args...)
}

func (f *fleetT) Fatalf(format string, args ...any) {
	f.TB.Helper()
	f.rec.add(f.fleet, fmt.Sprintf(format, args...))
	f.TB.Fatalf(format, args...)
}

func (f *fleetT) Error(args ...any) {
	f.TB.Helper()
	f.rec.add(f.fleet, fmt.Sprint(args...))
	f.TB.Error(args...)
}

func (f *fleetT) Fatal(args ...any) {
	f.TB.Helper()
	f.rec.add(f.fleet, fmt.Sprint(args...))
	f.TB.Fatal(args...)
}

// recap is every fleet's failure messages, in the order they came.
type recap struct {
	mu    sync.Mutex
	lines []string
}

func (r *recap) add(fleet, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, fleet+": "+strings.ReplaceAll(msg, "\n", "\n    "))
}

func (r *recap) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.lines, "\n")
}
