package cli

import (
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/gpufleet/gpufleet/compiler/load"
)

// gcNow is the garbage collector's GOGC and memory limit, unchanged.
func gcNow() (gogc int, limit int64) {
	gogc = debug.SetGCPercent(100)
	debug.SetGCPercent(gogc)
	return gogc, debug.SetMemoryLimit(-1)
}

// untuned clears GOGC and GOMEMLIMIT for the test and puts the collector
// back after it.
func untuned(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	t.Cleanup(keepGC())
}

// limitAfterGC collects until the memory limit is no longer was (the
// finalizer that tunes it runs after a collection, on its own goroutine),
// or 300 ms have passed.
func limitAfterGC(was int64) int64 {
	for deadline := time.Now().Add(300 * time.Millisecond); time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(time.Millisecond)
		if _, l := gcNow(); l != was {
			return l
		}
	}
	_, l := gcNow()
	return l
}

func TestTuneGC(t *testing.T) {
	untuned(t)
	_, limit := gcNow()
	dropped := tuneGC()
	if dropped == nil {
		t.Fatal("tuneGC left the collector alone with neither GOGC nor GOMEMLIMIT set")
	}
	if gogc, l := gcNow(); gogc != loadGOGC || l != int64(load.EvalMemory)/4*3 {
		t.Errorf("during load: GOGC %d, limit %d; want %d and three quarters of load.EvalMemory", gogc, l, loadGOGC)
	}
	ballast := make([]byte, 96<<20) // memory the "load" took
	ballast[len(ballast)-1] = 1
	dropped()
	runtime.KeepAlive(ballast)
	// The budget is what the runtime holds, ballast included: below it,
	// the later stages would collect as if the heap were full.
	if _, l := gcNow(); l < int64(len(ballast)) || l >= limit {
		t.Errorf("after the spec is dropped, the memory limit is %d; want what the runtime holds (at least %d)", l, len(ballast))
	}
}

func TestBudgetAndNeed(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		name         string
		m            mem
		budget, need int64
	}{
		// A small spec's budget is minBudget, not the few megabytes the
		// load took, which the collector would hit again and again.
		{"small", mem{total: 20 * mb, released: 4 * mb, live: 3 * mb, other: 5 * mb}, minBudget, 14 * mb},
		{"big", mem{total: 1100 * mb, released: 100 * mb, live: 40 * mb, other: 30 * mb}, 1000 * mb, 150 * mb},
		{"nothing released", mem{total: 300 * mb, live: 200 * mb, other: 10 * mb}, 300 * mb, 610 * mb},
	} {
		if got := tc.m.budget(); got != tc.budget {
			t.Errorf("%s: budget %d MiB, want %d MiB", tc.name, got/mb, tc.budget/mb)
		}
		if got := tc.m.need(); got != tc.need {
			t.Errorf("%s: need %d MiB, want %d MiB", tc.name, got/mb, tc.need/mb)
		}
	}
}

// TestTuneGCRaisesLimit: later stages that keep more live than a third of
// the budget get a limit of three times their live heap after a
// collection, not a collector that runs back to back.
func TestTuneGCRaisesLimit(t *testing.T) {
	untuned(t)
	tuneGC()()
	_, budget := gcNow()
	live := make([]byte, budget/2)
	live[len(live)-1] = 1
	got := limitAfterGC(budget)
	runtime.KeepAlive(live)
	if want := 3 * int64(len(live)); got < want {
		t.Errorf("with %d bytes live and a budget of %d, the limit is %d; want at least %d", len(live), budget, got, want)
	}
}

// TestKeepGCStopsTuning: once a command is over, the tuning stops; a later
// collection leaves the restored limit alone.
func TestKeepGCStopsTuning(t *testing.T) {
	untuned(t)
	restore := keepGC()
	_, limit := gcNow()
	tuneGC()()
	restore()
	live := make([]byte, 128<<20)
	live[len(live)-1] = 1
	got := limitAfterGC(limit)
	runtime.KeepAlive(live)
	if got != limit {
		t.Errorf("after the command, a collection set the limit to %d; want it left at %d", got, limit)
	}
}

// TestDroppedAfterRestore: the hook of a compile that outlived its
// command (a signal came first) changes nothing.
func TestDroppedAfterRestore(t *testing.T) {
	untuned(t)
	restore := keepGC()
	gogc, limit := gcNow()
	dropped := tuneGC()
	restore()
	dropped()
	if g, l := gcNow(); g != gogc || l != limit {
		t.Errorf("a late hook set GOGC %d, limit %d; want them as the command left them (%d, %d)", g, l, gogc, limit)
	}
}

func TestTuneGCLeavesUserSettings(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			untuned(t)
			t.Setenv(env, map[string]string{"GOGC": "150", "GOMEMLIMIT": "1GiB"}[env])
			gogc, limit := gcNow()
			if d := tuneGC(); d != nil {
				t.Errorf("tuneGC returned a hook with %s set", env)
			}
			if g, l := gcNow(); g != gogc || l != limit {
				t.Errorf("with %s set: GOGC %d, limit %d; want them unchanged (%d, %d)", env, g, l, gogc, limit)
			}
		})
	}
}

// TestRunRestoresGC: a build tunes the collector, and Run puts it back, so
// one command does not change the next one's in the same process.
func TestRunRestoresGC(t *testing.T) {
	untuned(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "fleet")
	if code := Run([]string{"init", spec}, io.Discard, io.Discard); code != ExitOK {
		t.Fatalf("init: exit %d", code)
	}
	gogc, limit := gcNow()
	if code := Run([]string{"build", "-o", filepath.Join(dir, "out"), spec}, io.Discard, io.Discard); code != ExitOK {
		t.Fatalf("build: exit %d", code)
	}
	if g, l := gcNow(); g != gogc || l != limit {
		t.Errorf("after build: GOGC %d, limit %d; want them as before (%d, %d)", g, l, gogc, limit)
	}
}
