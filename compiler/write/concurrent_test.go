//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package write

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// pause runs f once, where the next Tree is about to rename.
func pause(t *testing.T, f func()) {
	t.Cleanup(func() { beforeCommit = nil })
	beforeCommit = func() {
		beforeCommit = nil
		f()
	}
}

func sumOf(t *testing.T, dir string) string {
	t.Helper()
	s, err := testfleet.TreeSum(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A second build into a tree that a first is writing fails at once and
// changes nothing; the first finishes.
func TestSecondBuildFailsWhileFirstWrites(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Tree(out, tree.Tree{"a.yaml": []byte("a\n")}); err != nil {
		t.Fatal(err)
	}
	var second error
	pause(t, func() {
		_, second = Tree(out, tree.Tree{"a.yaml": []byte("second\n")})
	})
	if _, err := Tree(out, tree.Tree{"a.yaml": []byte("first\n")}); err != nil {
		t.Fatal(err)
	}
	if second == nil || !strings.Contains(second.Error(), out+" is being written by another gpufleet build") {
		t.Errorf("second build: %v, want 'is being written by another gpufleet build'", second)
	}
	if got := read(t, filepath.Join(out, "a.yaml")); got != "first\n" {
		t.Errorf("a.yaml = %q, want the first build's", got)
	}
	noStage(t, out)
}

// Of two builds that both found the tree missing, the first rename wins;
// the second fails having written nothing. Neither locks the parent, so
// builds into sibling trees never stop each other.
func TestSecondNewTreeFails(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	var sibling error
	pause(t, func() {
		if _, err := Tree(out, tree.Tree{"a.yaml": []byte("other\n")}); err != nil {
			t.Fatal(err)
		}
		_, sibling = Tree(filepath.Join(parent, "sibling"), tree.Tree{"s.yaml": []byte("s\n")})
	})
	_, err := Tree(out, tree.Tree{"a.yaml": []byte("late\n")})
	if err == nil || !strings.Contains(err.Error(), "was created by another build while this one ran") {
		t.Errorf("err = %v, want 'created by another build'", err)
	}
	if sibling != nil {
		t.Errorf("a build into a sibling failed: %v", sibling)
	}
	if got := read(t, filepath.Join(out, "a.yaml")); got != "other\n" {
		t.Errorf("a.yaml = %q, want the first build's", got)
	}
	noStage(t, parent)
}

// Stop closed before the renames leaves the tree as it was, stage gone;
// closed once they have begun, it changes nothing: the build finishes.
func TestStop(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	stopped := make(chan struct{})
	close(stopped)
	if _, err := Tree(out, tree.Tree{"a.yaml": []byte("a\n")}, Options{Stop: stopped}); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("new tree: err = %v, want ErrInterrupted", err)
	}
	if _, err := os.Lstat(out); !os.IsNotExist(err) {
		t.Errorf("a stopped build created the tree (%v)", err)
	}
	if _, err := Tree(out, tree.Tree{"a.yaml": []byte("a\n")}); err != nil {
		t.Fatal(err)
	}
	before := sumOf(t, out)
	if _, err := Tree(out, tree.Tree{"a.yaml": []byte("b\n")}, Options{Stop: stopped}); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("existing tree: err = %v, want ErrInterrupted", err)
	}
	if sumOf(t, out) != before {
		t.Error("a stopped build changed the tree")
	}
	noStage(t, parent)

	stop := make(chan struct{})
	pause(t, func() { close(stop) })
	if _, err := Tree(out, tree.Tree{"a.yaml": []byte("b\n"), "c/d.yaml": []byte("d\n")}, Options{Stop: stop}); err != nil {
		t.Fatalf("stopped while renaming: %v, want the build finished", err)
	}
	if read(t, filepath.Join(out, "a.yaml")) != "b\n" || read(t, filepath.Join(out, "c/d.yaml")) != "d\n" {
		t.Error("the build stopped while renaming did not finish")
	}
	noStage(t, parent)
}
