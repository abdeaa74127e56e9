package write

// A build writes its files to a stage directory, then renames them into
// place: inside the tree when it exists (so that each rename stays below
// the root), beside it when the tree is new. A build killed before it could
// remove its stage (SIGKILL, a power cut) leaves it behind, where 'git add
// -A' would commit it, so the next build removes it, but only a stage that
// is provably gpufleet's and that no build is using:
//
//	.gpufleet-stage-<26 base32 characters>/
//		gpufleet-stage   the marker, written right after the stage is locked
//		tree/            the files, at their paths in the tree
//
// A build holds an flock on its stage directory for as long as it lives,
// and the kernel drops it when the process ends however it ends: a stage
// that can be locked is dead.

import (
	"crypto/rand"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

const (
	stagePrefix = ".gpufleet-stage-"
	markerName  = "gpufleet-stage"
	stageTree   = "tree"
	stageMarker = "gpufleet build staged its files here; a later build deletes this directory if no build holds it.\n"
)

type stage struct {
	root *os.Root // the directory that holds the stage
	name string
	f    *os.File // the stage directory, locked
}

func newStage(root *os.Root) (*stage, error) {
	st := &stage{root: root, name: stagePrefix + rand.Text()}
	if err := root.Mkdir(st.name, 0o700); err != nil {
		return nil, err
	}
	f, err := root.Open(st.name)
	if err == nil {
		st.f = f
		// A fresh name is no one else's: the lock only tells others
		// this stage is alive, where the filesystem has locks.
		tryLock(f)
		err = root.WriteFile(filepath.Join(st.name, markerName), []byte(stageMarker), 0o600)
	}
	if err == nil {
		err = root.Mkdir(st.path("."), 0o755)
	}
	if err != nil {
		st.remove()
		return nil, err
	}
	return st, nil
}

// path is where the tree's slash path p is staged, relative to root.
func (st *stage) path(p string) string {
	return filepath.Join(st.name, stageTree, filepath.FromSlash(p))
}

// remove deletes the stage, then lets go of its lock.
func (st *stage) remove() {
	st.root.RemoveAll(st.name)
	if st.f != nil {
		st.f.Close()
	}
}

// removeLeftovers removes the dead stages in root, telling notice of each;
// where is root's path, for the notice.
func removeLeftovers(root *os.Root, where string, notice func(string)) {
	d, err := root.Open(".")
	if err != nil {
		return
	}
	entries, _ := d.ReadDir(-1)
	d.Close()
	// In name order, so that the notices are in the same order every run
	// (a directory's order is the filesystem's).
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range entries {
		if e.IsDir() && isStageName(e.Name()) && removeLeftover(root, e.Name()) && notice != nil {
			notice(fmt.Sprintf("removed %s, the stage directory of a build that did not finish", filepath.Join(where, e.Name())))
		}
	}
}

// isStageName reports whether name is one newStage makes.
func isStageName(name string) bool {
	r, ok := strings.CutPrefix(name, stagePrefix)
	return ok && len(r) == 26 && strings.Trim(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") == ""
}

// removeLeftover removes the stage name if no build holds it and it holds
// only what a build stages: its marker, and directories and regular files
// below tree/; or what a build killed while it made the stage leaves:
// nothing, or the start of the marker (newStage makes the directory, then
// the marker, then tree/). Anything else is someone's, and stays.
func removeLeftover(root *os.Root, name string) bool {
	f, err := root.Open(name)
	if err != nil {
		return false
	}
	defer f.Close() // after the removal, so no build can take the name meanwhile
	fi, err := f.Stat()
	lfi, lerr := root.Lstat(name)
	if err != nil || lerr != nil || !fi.IsDir() || !os.SameFile(fi, lfi) {
		return false
	}
	if held, err := tryLock(f); err != nil || !held {
		return false // alive, or no locks here to tell
	}
	entries, err := f.ReadDir(-1)
	if err != nil {
		return false
	}
	marker, hasTree := "", false
	for _, e := range entries {
		switch {
		case e.Name() == markerName && e.Type().IsRegular():
			mfi, err := e.Info()
			if err != nil {
				return false
			}
			data, err := readRegular(root, path.Join(name, markerName), mfi)
			if err != nil || !strings.HasPrefix(stageMarker, string(data)) {
				return false
			}
			marker = string(data)
		case e.Name() == stageTree && e.IsDir():
			if !onlyFiles(root, path.Join(name, stageTree)) {
				return false
			}
			hasTree = true
		default:
			return false
		}
	}
	if hasTree && marker != stageMarker {
		return false // a build writes the whole marker before tree/
	}
	return root.RemoveAll(name) == nil
}

// onlyFiles reports whether everything below dir is a directory or a
// regular file.
func onlyFiles(root *os.Root, dir string) bool {
	err := fs.WalkDir(root.FS(), dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			return fs.ErrInvalid
		}
		return nil
	})
	return err == nil
}
