package load

import (
	"runtime/metrics"
	"time"
)

// EvalMemory bounds the memory Load may hold, so that no spec can exhaust
// a CI runner's (a GitHub-hosted one has 7 to 16 GB): CUE programs can ask
// for far more than their size (a 73-byte list.Range(0, 50000000, 1)
// reached 3 GB and died with "fatal error: out of memory"), and CUE cannot
// be cancelled. The largest benchmark fleet (XL: 3,000 pools, 1,500
// classes, 10,000 tenants) peaks at 1.1 GB, so 4 GiB leaves it 3.6 times.
// A var, for tests.
var EvalMemory uint64 = 4 << 30

// memoryTick is how often Load looks at the memory held: CUE allocates as
// it goes, a few hundred MB a second at most, so a tick overshoots the
// bound by little.
const memoryTick = 20 * time.Millisecond

// held is the memory the Go runtime holds from the operating system: all
// it mapped, less what it has given back (runtime/metrics).
func held() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}

// watchMemory sends on the returned channel once the memory held passes
// bound, until stop is closed.
func watchMemory(stop <-chan struct{}, bound uint64) <-chan uint64 {
	over := make(chan uint64, 1)
	go func() {
		t := time.NewTicker(memoryTick)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if h := held(); h > bound {
					over <- h
					return
				}
			}
		}
	}()
	return over
}
