package par_test

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/internal/par"
)

// Every index runs exactly once, at any GOMAXPROCS, and each goroutine's
// state is its own.
func TestEach(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		prev := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 3, 1000} {
			runs := make([]int32, n)
			par.Each(n, func(i int) { atomic.AddInt32(&runs[i], 1) })
			var states atomic.Int32
			par.EachWith(n, func() *int { states.Add(1); return new(int) }, func(i int, s *int) {
				*s++ // a shared state would race here under -race
				atomic.AddInt32(&runs[i], 1)
			})
			for i, r := range runs {
				if r != 2 {
					t.Fatalf("GOMAXPROCS=%d n=%d: index %d ran %d times, want 2", procs, n, i, r)
				}
			}
			if got := int(states.Load()); got > procs || n > 0 && got == 0 {
				t.Errorf("GOMAXPROCS=%d n=%d: %d states", procs, n, got)
			}
		}
		runtime.GOMAXPROCS(prev)
	}
}
