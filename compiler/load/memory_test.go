package load_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gpufleet/gpufleet/compiler/load"
)

// A spec whose evaluation needs more than EvalMemory is stopped with an
// error, not by the operating system: a 58-byte list.Range(0, 50000000, 1)
// reached 3 GB and died with "fatal error: out of memory" and a goroutine
// dump. Here the bound is lowered to 64 MiB above what the test process
// holds, and the list is 3,000,000 long (about 250 MB), so that the test is
// quick and the evaluation, which cannot be cancelled and goes on after
// Load returns, ends soon after.
func TestLoadMemoryBounded(t *testing.T) {
	defer func(m uint64) { load.EvalMemory = m }(load.EvalMemory)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	load.EvalMemory = ms.Sys - ms.HeapReleased + 64<<20
	p := filepath.Join(t.TempDir(), "bomb.cue")
	if err := os.WriteFile(p, []byte("package fleet\nimport \"list\"\nx: list.Range(0, 3000000, 1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	msg := loadErr(t, p)
	if !strings.Contains(msg, p+": evaluating the spec took more than") || !strings.Contains(msg, "MiB of memory") {
		t.Errorf("got:\n%s", msg)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("stopped after %v", d)
	}
}
