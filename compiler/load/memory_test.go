package load_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gpufleet/gpufleet/compiler/load"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// A spec whose evaluation needs more than EvalMemory is stopped with an
// error, not by the operating system: a 58-byte list.Range(0, 50000000, 1)
// reached 3 GB and died with "fatal error: out of memory" and a goroutine
// dump. Here the bound is lowered to 64 MiB above what the test process
// holds, and the list is 3,000,000 long (about 250 MB), so that the test is
// quick.
//
// The evaluation cannot be cancelled and goes on after Load returns, so it
// runs in a process of its own (this test, run again), which ends it.
func TestLoadMemoryBounded(t *testing.T) {
	if os.Getenv("LOAD_BOMB_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLoadMemoryBounded$", "-test.count=1")
		cmd.Env = append(os.Environ(), "LOAD_BOMB_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
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

// The bound leaves every generated fleet room: at the L size (300 pools,
// 150 classes, 1,000 tenants) a load holds far less than a quarter of it,
// and the XL size (ten times L) peaks at 1.1 GB in make bench. Each seed's
// fleet is loaded with the bound at a quarter of its value, so a change
// that made loading four times hungrier fails here before it fails a user.
func TestGeneratedFleetsWithinBound(t *testing.T) {
	defer func(m uint64) { load.EvalMemory = m }(load.EvalMemory)
	load.EvalMemory /= 4
	dir := t.TempDir()
	for seed := uint64(1); seed <= 3; seed++ {
		for _, size := range []fleetgen.Size{fleetgen.S, fleetgen.M, fleetgen.L} {
			p := filepath.Join(dir, fmt.Sprintf("%s-%d.json", size.Name, seed))
			if err := os.WriteFile(p, fleetgen.JSON(fleetgen.Generate(seed, size, fleetgen.Options{Buildable: true})), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := load.Load([]string{p}); err != nil {
				t.Errorf("%s seed %d: %.300v", size.Name, seed, err)
			}
		}
	}
}
