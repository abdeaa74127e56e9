package write

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// wide is a tree of n files spread over directories two and three deep.
func wide(n int) tree.Tree {
	tr := tree.Tree{"top.yaml": []byte("top\n")}
	for i := range n {
		tr[fmt.Sprintf("d%02d/e%02d/f%d.yaml", i%13, i%7, i)] = []byte(fmt.Sprintf("f: %d\n", i))
		if i%5 == 0 {
			tr[fmt.Sprintf("d%02d/g%d.yaml", i%13, i)] = []byte("g\n")
		}
	}
	return tr
}

// Result.Written is in path order, whatever order the CPUs wrote in:
// fresh, rebuilt with some files changed, and rebuilt unchanged.
func TestWrittenInPathOrder(t *testing.T) {
	tr := wide(500)
	out := filepath.Join(t.TempDir(), "out")
	res, err := Tree(out, tr)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Written, tr.Paths()) {
		t.Fatalf("fresh build wrote %d files out of order", len(res.Written))
	}
	var changed []string
	for i, p := range tr.Paths() {
		if i%3 == 0 {
			tr[p] = append(slices.Clone(tr[p]), '#')
			changed = append(changed, p)
		}
	}
	tr["d99/new/n.yaml"] = []byte("n\n") // a new directory too
	changed = append(changed, "d99/new/n.yaml")
	slices.Sort(changed)
	if res, err = Tree(out, tr); err != nil || !slices.Equal(res.Written, changed) || len(res.Unchanged) != len(tr)-len(changed) {
		t.Fatalf("rebuild wrote %v (%v)", res, err)
	}
	for _, p := range tr.Paths() {
		if got := read(t, filepath.Join(out, filepath.FromSlash(p))); got != string(tr[p]) {
			t.Fatalf("%s = %q, want %q", p, got, tr[p])
		}
	}
	if res, err = Tree(out, tr); err != nil || len(res.Written) != 0 || !slices.Equal(res.Unchanged, tr.Paths()) {
		t.Fatalf("unchanged rebuild: %+v (%v)", res, err)
	}
	noStage(t, out)
}

// A Stop closed while the files are written leaves no tree and no stage,
// or, if it came too late, the whole tree: never part of one.
func TestStopWhileWriting(t *testing.T) {
	tr := wide(3000)
	for _, delay := range []time.Duration{0, 100 * time.Microsecond, time.Millisecond, 5 * time.Millisecond} {
		parent := t.TempDir()
		out := filepath.Join(parent, "out")
		stop := make(chan struct{})
		time.AfterFunc(delay, func() { close(stop) })
		res, err := Tree(out, tr, Options{Stop: stop})
		switch {
		case errors.Is(err, ErrInterrupted):
			if _, err := os.Lstat(out); !os.IsNotExist(err) {
				t.Errorf("delay %v: an interrupted build left %s (%v)", delay, out, err)
			}
		case err != nil:
			t.Fatalf("delay %v: %v", delay, err)
		case len(res.Written) != len(tr):
			t.Errorf("delay %v: wrote %d files, want all %d", delay, len(res.Written), len(tr))
		}
		noStage(t, parent)
	}
}

// The fresh tree is made with O_EXCL in a stage of gpufleet's own: a
// tree that names one path both a file and a directory fails, at the
// same path every time.
func TestFileAndDirectoryAtOnePath(t *testing.T) {
	tr := wide(200)
	tr["d03"] = []byte("a file where a directory goes\n")
	for range 5 {
		parent := t.TempDir()
		_, err := Tree(filepath.Join(parent, "out"), tr)
		if err == nil || err.Error() != "mkdir "+filepath.Join(parent, "out", "d03")+": file exists" {
			t.Fatalf("err = %v, want mkdir .../d03: file exists", err)
		}
		noStage(t, parent)
	}
}

// A generated path that is not a clean relative path is refused before
// anything is written.
func TestRefusesUncleanPaths(t *testing.T) {
	for _, p := range []string{"../x.yaml", "a/../../x.yaml", "/abs.yaml", "a//b.yaml", "./a.yaml", "a/"} {
		parent := t.TempDir()
		out := filepath.Join(parent, "out")
		if _, err := Tree(out, tree.Tree{p: []byte("x\n")}); err == nil {
			t.Errorf("%q: written", p)
		}
		if entries, _ := os.ReadDir(parent); len(entries) != 0 {
			t.Errorf("%q: %s holds %v", p, parent, entries)
		}
	}
}
