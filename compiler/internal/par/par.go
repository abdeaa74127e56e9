// Package par runs independent steps of a build on every CPU. Callers
// write each step's result to its own index, so what they produce does
// not depend on scheduling or GOMAXPROCS.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each runs f(i) for i in 0..n-1 on every CPU and returns when all are done.
func Each(n int, f func(i int)) {
	EachWith(n, func() struct{} { return struct{}{} }, func(i int, _ struct{}) { f(i) })
}

// EachWith is Each with state of each goroutine's own, made by newState:
// reusable scratch space that needs no locking.
func EachWith[S any](n int, newState func() S, f func(i int, s S)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newState()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i, s)
			}
		}()
	}
	wg.Wait()
}
