package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/gpufleet/gpufleet/compiler/load"
)

// The garbage collector's settings for a compile, unless GOGC or GOMEMLIMIT
// is set.
//
// CUE's evaluation of a spec builds a graph of values that stays live until
// derive drops it, so collecting while it grows marks the same objects
// again and again: at the default GOGC of 100, 0.7 s of the 1.8 s an XL
// spec took to load. At loadGOGC the heap may grow to nine times what was
// live at the last collection, and the load collects a few times, not a
// dozen.
//
// Once the spec is dropped, most of the memory the load took is the later
// stages' budget (debug.SetMemoryLimit): the first collection frees the spec, and
// the later stages, which keep far less live than CUE did, collect rarely
// and never raise the peak. Should they keep more than a third of the
// budget live, the limit rises after a collection to three times the live
// heap, so they never collect more often than at the default GOGC.
const (
	loadGOGC = 800
	// minBudget keeps a small spec's budget above the memory a few
	// collections leave in partly used spans, which would otherwise be
	// counted against it.
	minBudget = 64 << 20
)

// collectEvaluated is the heap at the end of CUE's evaluation from which
// a collection runs there. Decoding the evaluated spec makes garbage about
// 0.7 times what CUE keeps live (CUE's MarshalJSON allocates 167 MB for
// 1.8 MB of JSON), on top of the evaluation's own: an XL spec peaked at a
// 1,019 MB heap, 480 MB of it live. Collecting first (480 MB marked)
// brings the peak to about 840 MB and peak RSS from 1.27 to 1.13-1.19
// times cue's, for about 0.4 CPU-seconds of 6. Below this size the
// collection costs more of the run (L: 8% more CPU) than the few
// megabytes it saves. A variable for its test.
var collectEvaluated uint64 = 256 << 20

// gcTuning guards the collector's settings. gen counts the compiles that
// tuned it and the commands that put it back, so that a stale hook or
// callback (a compile a signal abandoned, say) changes nothing. limit is
// the memory limit the current compile set.
var gcTuning struct {
	sync.Mutex
	gen   int
	limit int64
}

// tuneGC sets the collector for one compile and returns what
// compiler.Options.Evaluated and Dropped should call, or nils if the user
// chose their own settings.
func tuneGC() (evaluated, dropped func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return nil, nil
	}
	g := &gcTuning
	g.Lock()
	defer g.Unlock()
	g.gen++
	gen := g.gen
	debug.SetGCPercent(loadGOGC)
	// Garbage must not pass load.MemoryBound, which stops a hostile spec:
	// near three quarters of it the collector runs whatever GOGC says, so
	// only live memory reaches the bound.
	debug.SetMemoryLimit(int64(load.MemoryBound()) / 4 * 3)
	evaluated = func() {
		g.Lock()
		defer g.Unlock()
		if g.gen == gen && readMem().objects >= collectEvaluated {
			runtime.GC()
		}
	}
	return evaluated, func() {
		g.Lock()
		defer g.Unlock()
		if g.gen != gen {
			return
		}
		g.limit = readMem().budget()
		debug.SetMemoryLimit(g.limit)
		afterEachGC(func() bool {
			g.Lock()
			defer g.Unlock()
			if g.gen != gen {
				return false
			}
			if need := readMem().need(); need > g.limit {
				g.limit = need
				debug.SetMemoryLimit(need)
			}
			return true
		})
	}
}

// afterEachGC calls f after each collection until it returns false (as
// cmd/compile's forEachGC does: a finalizer that sets itself again).
func afterEachGC(f func() bool) {
	type obj [32]byte // big enough to miss the tiny allocator
	var fin func(*obj)
	fin = func(p *obj) {
		if f() {
			runtime.SetFinalizer(p, fin)
		}
	}
	runtime.SetFinalizer(new(obj), fin)
}

// mem is what runtime/metrics says of the runtime's memory.
type mem struct {
	total, released uint64
	// live is the heap the last collection found live; other is what is
	// not heap (stacks, the runtime's own structures).
	live, other uint64
	// objects is the heap's objects, live or not yet collected.
	objects uint64
}

func readMem() mem {
	s := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
	metrics.Read(s)
	v := func(i int) uint64 { return s[i].Value.Uint64() }
	heap := v(1) + v(3) + v(4) + v(5)
	return mem{total: v(0), released: v(1), live: v(2), other: v(0) - heap, objects: v(3)}
}

// held is the memory the runtime holds from the operating system: all it
// mapped, less what it has given back.
func (m mem) held() uint64 { return m.total - m.released }

// budget is the later stages' memory limit: 85% of what the load took,
// and no less than minBudget. At the full amount, what a build allocates
// while a collection marks (the tree's encoding goes on) took an XL
// build's peak RSS 70 MB past the load's (1,125 MB against 1,052); at
// 85% its peak is the load's, for the same CPU.
func (m mem) budget() int64 { return max(int64(m.held())/100*85, minBudget) }

// need is the least limit that leaves the collector its room: three times
// the live heap, and what is not heap.
func (m mem) need() int64 { return int64(3*m.live + m.other) }

// keepGC returns a function that stops a compile's tuning and puts the
// collector's settings back as they are now, for callers that run more
// than one command in a process (tests).
func keepGC() (restore func()) {
	gogc := debug.SetGCPercent(100)
	debug.SetGCPercent(gogc)
	limit := debug.SetMemoryLimit(-1)
	return func() {
		gcTuning.Lock()
		defer gcTuning.Unlock()
		gcTuning.gen++
		debug.SetGCPercent(gogc)
		debug.SetMemoryLimit(limit)
	}
}
