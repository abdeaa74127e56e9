//go:build unix

package encode_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used, every thread's, the
// garbage collector's included: on a shared machine, unlike wall time, it
// does not count waiting for a CPU.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
