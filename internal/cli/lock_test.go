//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/gpufleet/gpufleet/internal/cli"
)

// While one build writes a tree, it holds an exclusive flock on the
// directory: a second build into it fails at once (exit 2), naming the
// holder, and changes nothing; once the lock is gone it builds.
func TestBuildRefusesLockedTree(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, dir, "fleet.cue", validFleet)
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI("build", spec, "-o", out); code != cli.ExitOK {
		t.Fatalf("build: exit %d\n%s", code, stderr)
	}
	before := treeSum(t, out)

	// The first build, as far as the second can tell.
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	changed := writeFile(t, dir, "changed.cue", strings.Replace(validFleet, "value: 1000", "value: 2000", 1))
	code, stdout, stderr := runCLI("build", changed, "-o", out)
	if code != cli.ExitInvalid || stdout != "" {
		t.Errorf("second build: exit %d, want 2; stdout:\n%s", code, stdout)
	}
	want := out + " is being written by another gpufleet build"
	if runtime.GOOS == "linux" {
		want += fmt.Sprintf(" (pid %d)", os.Getpid())
	}
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr)
	}
	if treeSum(t, out) != before {
		t.Error("the second build changed the tree")
	}

	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if code, _, stderr := runCLI("build", changed, "-o", out); code != cli.ExitOK {
		t.Fatalf("build after the lock was released: exit %d\n%s", code, stderr)
	}
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e strings.Builder
	code = cli.Run(args, &o, &e)
	return code, o.String(), e.String()
}

// A locked tree refuses a build with --format json as one document.
func TestBuildJSONWhenTreeLocked(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, dir, "fleet.cue", validFleet)
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI("build", spec, "-o", out); code != cli.ExitOK {
		t.Fatalf("build: exit %d\n%s", code, stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	changed := writeFile(t, dir, "changed.cue", strings.Replace(validFleet, "value: 1000", "value: 2000", 1))
	treeRefusedJSON(t, "is being written by another gpufleet build", "build", changed, "-o", out)
}
