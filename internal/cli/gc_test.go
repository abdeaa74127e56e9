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
	evaluated, dropped := tuneGC()
	if dropped == nil || evaluated == nil {
		t.Fatal("tuneGC left the collector alone with neither GOGC nor GOMEMLIMIT set")
	}
	if gogc, l := gcNow(); gogc != loadGOGC || l != int64(load.MemoryBound())/4*3 {
		t.Errorf("during load: GOGC %d, limit %d; want %d and three quarters of load.MemoryBound", gogc, l, loadGOGC)
	}
	ballast := make([]byte, 96<<20) // memory the "load" took
	ballast[len(ballast)-1] = 1
	dropped()
	runtime.KeepAlive(ballast)
	// The budget is most of what the runtime holds, ballast included:
	// far below it, the later stages would collect as if the heap were
	// full.
	if _, l := gcNow(); l < int64(len(ballast))/100*85 || l >= limit {
		t.Errorf("after the spec is dropped, the memory limit is %d; want 85%% of what the runtime holds (at least %d)", l, int64(len(ballast))/100*85)
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
		{"big", mem{total: 1100 * mb, released: 100 * mb, live: 40 * mb, other: 30 * mb}, 850 * mb, 150 * mb},
		{"nothing released", mem{total: 300 * mb, live: 200 * mb, other: 10 * mb}, 255 * mb, 610 * mb},
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
	_, dropped := tuneGC()
	dropped()
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
	_, dropped := tuneGC()
	dropped()
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
	evaluated, dropped := tuneGC()
	restore()
	n := numGC()
	evaluated()
	dropped()
	if numGC() != n {
		t.Error("a late Evaluated hook collected")
	}
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
			if e, d := tuneGC(); e != nil || d != nil {
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

func numGC() uint32 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.NumGC
}

// TestEvaluatedCollectsBigHeaps: the Evaluated hook collects once the
// heap holds collectEvaluated bytes of objects, and not below.
func TestEvaluatedCollectsBigHeaps(t *testing.T) {
	untuned(t)
	was := collectEvaluated
	t.Cleanup(func() { collectEvaluated = was })
	evaluated, _ := tuneGC()
	collectEvaluated = 1 << 40
	n := numGC()
	evaluated()
	if got := numGC(); got != n {
		t.Errorf("below the threshold, Evaluated collected (%d collections, want %d)", got, n)
	}
	collectEvaluated = 1
	evaluated()
	if got := numGC(); got == n {
		t.Error("above the threshold, Evaluated did not collect")
	}
}
