// Package write puts a rendered tree on disk so that a failure never leaves
// a half-written tree: every file is staged in a temporary directory, then
// renamed into place. A build told to stop (Options.Stop) stops before the
// first rename or not at all, and two builds never write one tree at once.
// The tree on disk may come from a stranger's pull request, so nothing in
// it is trusted (see safe.go).
package write

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// Result says what Tree changed.
type Result struct {
	Written   []string // files created or changed
	Unchanged []string // files already identical
	Pruned    []string // files a previous build generated that are gone now
	Kept      []Kept   // files prune could not prove gpufleet wrote
	Unpruned  []Kept   // files prune meant to delete but could not
}

// Kept is a file the manifest lists that prune left alone, and why.
type Kept struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Options tune Tree.
type Options struct {
	// Prune deletes files the previous build listed in its manifest that
	// this tree no longer has, if they are still as gpufleet wrote them.
	Prune bool
	// Inputs are the spec files or directories: a generated path that is
	// one of their files is refused, and prune never deletes one.
	Inputs []string
	// Stop, once closed, makes Tree return ErrInterrupted without changing
	// the tree. Tree looks at it while staging and one last time before the
	// first rename, never after: renaming and pruning take milliseconds,
	// and stopping halfway would leave a tree that is neither old nor new.
	Stop <-chan struct{}
	// Notice, if set, hears what Tree did besides writing the tree: the
	// stage directories of earlier builds that it removed.
	Notice func(msg string)
}

// ErrInterrupted is Tree stopped by Options.Stop: the tree is unchanged.
var ErrInterrupted = errors.New("interrupted before the tree was changed")

func (o *Options) stopped() bool {
	select {
	case <-o.Stop:
		return true
	default:
		return false
	}
}

// beforeCommit, if set, runs after the last look at Options.Stop and
// before the first rename: tests pause a build there.
var beforeCommit func()

// Tree writes tree below dir. A new dir appears whole in one rename. In an
// existing dir, each file that differs is renamed over its old version,
// and files that gpufleet does not generate are left alone. Every check
// that can fail, prune's included, runs before the first rename. A
// symbolic link, or anything but a directory or a regular file, on the way
// to a generated path is refused (see safe.go); with openat none is
// followed, not even one swapped in after the checks (see handle.go). The
// work runs a directory at a time on every CPU, but what Tree returns,
// its error included (the lowest path's), does not depend on scheduling.
// While it writes an existing dir, Tree holds a lock on it, so a second
// build fails rather than interleave (see lock_unix.go); it first removes
// the stages that builds killed before they could clean up left there
// (see stage.go).
func Tree(dir string, tr tree.Tree, opts ...Options) (*Result, error) {
	var opt Options
	if len(opts) > 0 {
		opt = opts[0]
	}
	out, err := openOut(dir, "")
	if err != nil {
		return nil, err
	}
	defer out.close()
	if out.root == nil {
		return writeNew(out.abs, tr, &opt)
	}
	lock, err := lockTree(out)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	removeLeftovers(out.root, out.abs, opt.Notice)
	if opt.stopped() {
		return nil, ErrInterrupted
	}
	return rebuild(out, tr, &opt)
}

// writeNew stages the whole tree beside abs and renames it into place.
func writeNew(abs string, tr tree.Tree, opt *Options) (*Result, error) {
	paths := tr.Paths()
	if err := checkPaths(paths); err != nil {
		return nil, err
	}
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	root, err := os.OpenRoot(parent)
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	defer root.Close()
	removeLeftovers(root, parent, opt.Notice)
	if opt.stopped() {
		return nil, ErrInterrupted
	}
	st, err := newStage(root)
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	defer st.remove()
	staged, err := openBase(root, st.path("."))
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	err = writeFiles(staged, tr, paths, abs, opt)
	staged.close()
	if err != nil {
		return nil, err
	}
	if err := root.Chmod(st.path("."), 0o755); err != nil {
		return nil, err
	}
	if opt.stopped() {
		return nil, ErrInterrupted
	}
	if beforeCommit != nil {
		beforeCommit()
	}
	// No lock guards a directory that does not exist yet (locking the
	// parent would fail a build into a sibling): of two builds that both
	// found dir missing, the first rename wins and the second fails here,
	// having changed nothing.
	if err := root.Rename(st.path("."), filepath.Base(abs)); errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("output directory %s was created by another build while this one ran; this build wrote nothing", abs)
	} else if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	return &Result{Written: paths}, nil
}
