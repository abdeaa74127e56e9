package load

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
)

// The memory the evaluation may hold is EvalMemory, lowered to what this
// process can really use, so that a hostile spec is stopped with an error
// and not by the kernel or the Go runtime ("fatal error: out of memory"
// and a goroutine dump under an 8 GB address-space cap, found by the
// fourth hostile-input review). The watcher looks every memoryTick, and one
// step of a spec that doubles a string allocates as much again as it holds,
// so the bound leaves room for twice itself: half a cgroup's memory limit
// (what the kernel's OOM killer enforces), and a third of what RLIMIT_AS
// leaves of the address space. The runtime reserves about 1.7 GB of it
// before the first allocation (VmSize with 67 MB resident), so the room is
// the limit less what is mapped now.

// memoryBound is the bound Load applies and why it is that: "" when it is
// EvalMemory itself.
func memoryBound() (uint64, string) {
	bound, why := EvalMemory, ""
	if as, ok := addressSpaceLimit(); ok {
		room := as - min(as, addressSpaceUsed())
		if b := held() + room/3; b < bound {
			bound, why = b, fmt.Sprintf("a third of the %d MiB the address-space limit (ulimit -v) leaves", room>>20)
		}
	}
	if cg, ok := cgroupMemoryLimit(os.DirFS("/"), readFile("/proc/self/cgroup")); ok && cg/2 < bound {
		bound, why = cg/2, fmt.Sprintf("half the cgroup's memory limit of %d MiB", cg>>20)
	}
	return bound, why
}

// addressSpaceUsed is this process's mapped address space (VmSize in
// /proc/self/status), or 0 where there is no /proc.
func addressSpaceUsed() uint64 {
	sc := bufio.NewScanner(bytes.NewReader(readFile("/proc/self/status")))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmSize:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// MemoryBound is the memory Load lets an evaluation hold, for the CLI's
// garbage-collector settings.
func MemoryBound() uint64 {
	b, _ := memoryBound()
	return b
}

func readFile(p string) []byte {
	b, _ := os.ReadFile(p)
	return b
}

// cgroupMemoryLimit is the least memory limit of this process's cgroup and
// its ancestors, cgroup v2 (memory.max, "max" for none) or v1
// (memory.limit_in_bytes, a value near 2^63 for none). procCgroup is
// /proc/self/cgroup. In a container the cgroup's own path is often not
// mounted, so the mount's root counts too.
func cgroupMemoryLimit(root fs.FS, procCgroup []byte) (uint64, bool) {
	var best uint64
	found := false
	try := func(file string) {
		b, err := fs.ReadFile(root, file)
		if err != nil {
			return
		}
		s := strings.TrimSpace(string(b))
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || n == 0 || n >= 1<<62 { // "max", or v1's "unlimited"
			return
		}
		if !found || n < best {
			best, found = n, true
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(procCgroup))
	for sc.Scan() {
		// hierarchy-ID:controllers:path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[2], "/") {
			continue
		}
		var dir, file string
		switch {
		case parts[0] == "0" && parts[1] == "":
			dir, file = "sys/fs/cgroup", "memory.max"
		case hasController(parts[1], "memory"):
			dir, file = "sys/fs/cgroup/memory", "memory.limit_in_bytes"
		default:
			continue
		}
		for p := path.Clean(parts[2]); ; p = path.Dir(p) {
			try(path.Join(dir, p, file))
			if p == "/" {
				break
			}
		}
	}
	return best, found
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}
