//go:build linux

package load_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/load"
)

// A spec that doubles a string 34 times (16 GiB) is stopped with an error
// under an address-space limit (ulimit -v), not by the Go runtime's "fatal
// error: out of memory": the bound is a third of the room the limit leaves.
// The child gets 1.5 GiB of room, stops at about half a GiB, and exits at
// once, since the evaluation cannot be cancelled.
func TestLoadStopsUnderAddressSpaceLimit(t *testing.T) {
	if os.Getenv("LOAD_AS_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLoadStopsUnderAddressSpaceLimit$", "-test.count=1")
		cmd.Env = append(os.Environ(), "LOAD_AS_CHILD=1", "GOGC=100")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "stopped with: ") {
			t.Fatalf("%v\n%.2000s", err, out)
		}
		if msg := string(out); !strings.Contains(msg, "the address-space limit (ulimit -v) leaves") {
			t.Errorf("the error does not name the limit:\n%s", msg)
		}
		return
	}
	var spec strings.Builder
	spec.WriteString("package fleet\na0: \"xxxxxxxx\"\n")
	for i := 1; i <= 34; i++ {
		fmt.Fprintf(&spec, "a%d: a%d + a%d\n", i, i-1, i-1)
	}
	p := filepath.Join(t.TempDir(), "double.cue")
	if err := os.WriteFile(p, []byte(spec.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	status, _ := os.ReadFile("/proc/self/status")
	var vm uint64
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &vm)
		}
	}
	lim := syscall.Rlimit{Cur: vm<<10 + 3<<29, Max: vm<<10 + 3<<29}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		t.Fatal(err)
	}
	_, err := load.Load([]string{p})
	fmt.Printf("stopped with: %v\n", err)
	os.Exit(0)
}
