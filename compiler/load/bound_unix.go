//go:build unix

package load

import "syscall"

// addressSpaceLimit is RLIMIT_AS's soft limit, if there is one below the
// largest address (RLIM_INFINITY is all ones).
func addressSpaceLimit() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil {
		return 0, false
	}
	cur := uint64(r.Cur)
	return cur, cur < 1<<62
}
