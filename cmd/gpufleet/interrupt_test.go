//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// TestInterruptedBuild sends SIGTERM and SIGINT to real gpufleet processes
// at moments spread over a rebuild of a thousand-file tree (while it
// compiles, stages, renames and prunes) and asserts, whenever the signal
// lands: the tree is the old one or the new one, byte for byte; no stage
// directory is left in it or beside it; an interrupted build exits 130 for
// SIGINT, 143 for SIGTERM, and one the signal reached too late exits 0.
// (A signal that comes while gpufleet starts, before it catches them,
// kills it, and a shell reports the same 130 or 143: nothing is written
// by then.)
func TestInterruptedBuild(t *testing.T) {
	dir := t.TempDir()
	var specs [2]string
	for i := range specs {
		specs[i] = filepath.Join(dir, fmt.Sprintf("fleet-%d.json", i))
		f := fleetgen.Generate(uint64(i+1), fleetgen.M, fleetgen.Options{Buildable: true})
		if err := os.WriteFile(specs[i], fleetgen.JSON(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	sum := func(d string) string {
		s, err := testfleet.TreeSum(d)
		if errors.Is(err, os.ErrNotExist) {
			return "" // a new tree that never appeared
		}
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	build := func(target int, d string) *exec.Cmd {
		return exec.Command("gpufleet", "build", specs[target], "-o", d, "--prune")
	}

	// The two trees, and how long after its stage appears a rebuild ends:
	// the signals below are spread over that time.
	var sums [2]string
	if b, err := build(0, out).CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	sums[0] = sum(out)
	var span time.Duration
	for _, target := range []int{1, 0} {
		r := start(t, build(target, out), out)
		r.waitStage()
		if code := r.wait(); code != 0 {
			t.Fatalf("rebuild: exit %d\n%s", code, r.stderr.String())
		}
		span += time.Since(r.staged)
		if sums[target] == "" {
			sums[target] = sum(out)
		} else if sum(out) != sums[target] {
			t.Fatal("rebuilding the first spec did not give back its tree")
		}
	}
	span /= 2
	t.Logf("%d generated entries; a rebuild ends %v after its stage appears", strings.Count(sums[0], "\n"), span)

	const iterations = 24
	rng := rand.New(rand.NewPCG(1, 2))
	on := 0 // the tree in out
	var kept, finished, late int
	for i := range iterations {
		sig, code := syscall.SIGTERM, 143
		if i%2 == 1 {
			sig, code = syscall.SIGINT, 130
		}
		target, d, before := 1-on, out, sums[on]
		if i%6 == 5 {
			d, before = filepath.Join(dir, fmt.Sprintf("new-%d", i)), "" // a tree that does not exist yet
		}
		r := start(t, build(target, d), d)
		var when string
		if i%8 == 0 {
			// Most likely while compiling, before anything is staged.
			delay := time.Duration(rng.Int64N(int64(150 * time.Millisecond)))
			time.Sleep(delay)
			when = fmt.Sprintf("%v after start", delay)
		} else {
			r.waitStage()
			delay := time.Duration(rng.Int64N(int64(span + span/4)))
			time.Sleep(delay)
			when = fmt.Sprintf("%v after the stage appeared", delay)
		}
		r.cmd.Process.Signal(sig)
		got := r.wait()
		after := sum(d)
		switch ws := r.cmd.ProcessState.Sys().(syscall.WaitStatus); {
		case ws.Signaled() && ws.Signal() == sig && r.staged.IsZero():
			// Before gpufleet caught signals, while it parsed its flags:
			// nothing was written, and a shell reports the same code.
			got = code
		case ws.Signaled():
			t.Errorf("%d: %v %s: killed by the signal; want exit %d\n%s", i, sig, when, code, r.stderr.String())
		case got == code && !strings.Contains(r.stderr.String(), "gpufleet build: interrupted by "+signame[sig]):
			t.Errorf("%d: stderr does not say the build was interrupted:\n%s", i, r.stderr.String())
		}
		switch {
		case got == 0 && after != sums[target]:
			t.Errorf("%d: %v %s: exit 0, but the tree is not the new one", i, sig, when)
		case got == 0:
			late++
		case got != code:
			t.Errorf("%d: %v %s: exit %d, want %d\n%s", i, sig, when, got, code, r.stderr.String())
		}
		switch after {
		case before:
			kept++
		case sums[target]:
			finished++
		default:
			t.Errorf("%d: %v %s: the tree is neither the old one nor the new one", i, sig, when)
		}
		t.Logf("%d: %s %s: exit %d; %s", i, signame[sig], when, got, lastLine(r.stderr.String()))
		for _, where := range []string{d, dir} {
			if s := stages(where); len(s) > 0 {
				t.Errorf("%d: %v %s left %v in %s", i, sig, when, s, where)
			}
		}
		if d == out && after == sums[target] {
			on = target
		}
		if d != out {
			os.RemoveAll(d)
		}
	}
	t.Logf("%d iterations: %d left the old tree, %d the new one (%d of them ended before the signal)", iterations, kept, finished, late)
}

var signame = map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT"}

// A running build, and when its stage directory appeared.
type running struct {
	t      *testing.T
	cmd    *exec.Cmd
	dir    string
	stderr *bytes.Buffer
	done   chan struct{}
	staged time.Time
}

func start(t *testing.T, cmd *exec.Cmd, dir string) *running {
	t.Helper()
	r := &running{t: t, cmd: cmd, dir: dir, stderr: &bytes.Buffer{}, done: make(chan struct{})}
	cmd.Stderr = r.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(r.done) }()
	return r
}

// waitStage returns once a stage directory is in dir or beside it, or the
// build has ended.
func (r *running) waitStage() {
	for {
		if len(stages(r.dir))+len(stages(filepath.Dir(r.dir))) > 0 {
			r.staged = time.Now()
			return
		}
		select {
		case <-r.done:
			r.staged = time.Now()
			return
		case <-time.After(200 * time.Microsecond):
		}
	}
}

func (r *running) wait() int {
	select {
	case <-r.done:
	case <-time.After(time.Minute):
		r.cmd.Process.Kill()
		<-r.done
		r.t.Fatalf("build did not end within a minute\n%s", r.stderr.String())
	}
	return r.cmd.ProcessState.ExitCode()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func stages(dir string) []string {
	var s []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".gpufleet-stage-") {
			s = append(s, e.Name())
		}
	}
	return s
}
