package load

import (
	"runtime"
	"testing"
	"testing/fstest"
)

func TestCgroupMemoryLimit(t *testing.T) {
	const gib = 1 << 30
	v2 := []byte("0::/runner/job\n")
	v1 := []byte("4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n")
	for _, tc := range []struct {
		name   string
		fs     fstest.MapFS
		cgroup []byte
		want   uint64
		ok     bool
	}{
		{"v2 leaf", fstest.MapFS{"sys/fs/cgroup/runner/job/memory.max": {Data: []byte("2147483648\n")}}, v2, 2 * gib, true},
		{"v2 parent's is lower", fstest.MapFS{
			"sys/fs/cgroup/runner/job/memory.max": {Data: []byte("max\n")},
			"sys/fs/cgroup/runner/memory.max":     {Data: []byte("1073741824\n")},
		}, v2, gib, true},
		// In a container the cgroup's own path is not mounted: its mount's
		// root is the cgroup.
		{"v2 in a container", fstest.MapFS{"sys/fs/cgroup/memory.max": {Data: []byte("8589934592\n")}}, v2, 8 * gib, true},
		{"v2 none", fstest.MapFS{"sys/fs/cgroup/memory.max": {Data: []byte("max\n")}}, v2, 0, false},
		{"v1", fstest.MapFS{"sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": {Data: []byte("4294967296\n")}}, v1, 4 * gib, true},
		// This machine's: v1 with no limit, which reads as 2^63 rounded
		// down to a page.
		{"v1 unlimited", fstest.MapFS{"sys/fs/cgroup/memory/memory.limit_in_bytes": {Data: []byte("9223372036854771712\n")}}, v1, 0, false},
		{"no cgroup file", fstest.MapFS{}, v2, 0, false},
		{"garbage", fstest.MapFS{"sys/fs/cgroup/memory.max": {Data: []byte("-1\n")}}, []byte("nonsense\n0::/\n"), 0, false},
	} {
		got, ok := cgroupMemoryLimit(tc.fs, tc.cgroup)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: got %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// On Linux the mapped address space is known, and far more than the heap.
func TestAddressSpaceUsed(t *testing.T) {
	if runtime.GOOS != "linux" {
		return // no /proc/self/status: the limit alone counts
	}
	if used := addressSpaceUsed(); used < held() {
		t.Errorf("address space %d below the memory held, %d", used, held())
	}
}
