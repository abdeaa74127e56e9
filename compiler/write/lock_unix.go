//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package write

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lockTree takes an exclusive flock on the existing tree out for the whole
// write, so that two builds never interleave their renames: the second
// fails at once, naming the first where it can. No lock file is added to
// the tree: the lock is on the directory itself, and the kernel drops it
// when the build ends, however it ends. On a filesystem without flock
// (some network ones) the build goes on unlocked, as before.
func lockTree(out *outDir) (*os.File, error) {
	f, err := out.root.Open(".")
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	if held, err := tryLock(f); err == nil && !held {
		who := ""
		if pid := lockHolder(f); pid > 0 {
			who = fmt.Sprintf(" (pid %d)", pid)
		}
		f.Close()
		return nil, fmt.Errorf("%s is being written by another gpufleet build%s; run this one again once it has finished", out.abs, who)
	}
	return f, nil
}

// tryLock takes an exclusive flock on f without waiting; false if another
// process holds one.
func tryLock(f *os.File) (bool, error) {
	c, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	var lerr error
	if err := c.Control(func(fd uintptr) {
		for {
			lerr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if lerr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return false, err
	}
	if errors.Is(lerr, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return lerr == nil, lerr
}

// lockHolder is the pid that holds an flock on f, as Linux's /proc/locks
// tells it, or 0.
func lockHolder(f *os.File) int {
	fi, err := f.Stat()
	st, ok := fi.Sys().(*syscall.Stat_t)
	if err != nil || !ok {
		return 0
	}
	lf, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer lf.Close()
	// Linux's encoding of a device number, which /proc/locks prints as
	// hex major:minor:inode.
	dev := uint64(st.Dev)
	major := dev>>8&0xfff | dev>>32&^uint64(0xfff)
	minor := dev&0xff | dev>>12&^uint64(0xff)
	want := fmt.Sprintf("%02x:%02x:%d", major, minor, uint64(st.Ino))
	sc := bufio.NewScanner(lf)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; a waiter's
		// line has "->" after the number.
		fs := strings.Fields(sc.Text())
		if len(fs) >= 6 && fs[1] == "FLOCK" && fs[5] == want {
			if pid, err := strconv.Atoi(fs[4]); err == nil && pid > 0 {
				return pid
			}
		}
	}
	return 0
}
