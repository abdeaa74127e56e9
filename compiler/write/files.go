package write

import (
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// writeFiles writes paths (sorted) with their bytes in tr below base, a
// stage directory that gpufleet made and that holds nothing yet: each
// directory is made once, after its parent, and each directory's files
// are created by name in it (O_EXCL: never over anything, nor through a
// link), a directory at a time on every CPU. abs names the tree in
// errors. It returns the error at the lowest path, or ErrInterrupted.
func writeFiles(base dirH, tr tree.Tree, paths []string, abs string, opt *Options) error {
	low := newLowest()
	where := func(p string) string { return filepath.Join(abs, filepath.FromSlash(p)) }
	eachGroup(groupDirs(paths, true), true, walkerOf(base, false), func(w *walker, g *dirGroup) {
		if low.skip(g.lo) || opt.stopped() {
			return
		}
		if g.dir != "." {
			pd, name := splitDir(g.dir)
			parent, err := w.mustDir(pd)
			if err == nil {
				err = parent.mkdir(name)
			}
			if err != nil {
				low.set(g.lo, &fs.PathError{Op: "mkdir", Path: where(g.dir), Err: underlying(err)})
				return
			}
		}
		h, err := w.mustDir(g.dir)
		if err != nil {
			low.set(g.lo, &fs.PathError{Op: "open", Path: where(g.dir), Err: underlying(err)})
			return
		}
		for _, i := range g.files {
			if low.skip(i) || opt.stopped() {
				return
			}
			_, name := splitDir(paths[i])
			if err := h.create(name, tr[paths[i]], 0o644); err != nil {
				low.set(i, &fs.PathError{Op: "write", Path: where(paths[i]), Err: underlying(err)})
				return
			}
		}
	})
	if opt.stopped() {
		return ErrInterrupted
	}
	return low.err
}

// commit renames each of written (sorted) from the stage into the tree
// out, a directory at a time on every CPU, making the directories missing
// on the way. It follows no link in the tree: one there now, since
// preflight, fails the rename. It returns the error at the lowest path.
func commit(stage, out dirH, written []string, abs string) error {
	low := newLowest()
	type walkers struct{ from, to *walker }
	newState := func() (walkers, func()) {
		ws := walkers{newWalker(stage), newWalker(out)}
		ws.to.mkdir = true
		return ws, func() { ws.from.close(); ws.to.close() }
	}
	eachGroup(groupDirs(written, false), false, newState, func(ws walkers, g *dirGroup) {
		// A directory's error is its first file's: g.lo may be a
		// subdirectory's, which runs at the same time.
		k := g.files[0]
		if low.skip(k) {
			return
		}
		first := written[k]
		from, err := ws.from.mustDir(g.dir)
		if err != nil {
			low.set(k, fmt.Errorf("cannot write %s: %w", filepath.Join(abs, filepath.FromSlash(first)), err))
			return
		}
		to, b, err := ws.to.dir(g.dir)
		switch {
		case b != nil:
			low.set(k, (&blocker{path: first, at: b.at, what: b.what}).writeErr(abs))
			return
		case err != nil:
			low.set(k, fmt.Errorf("cannot write %s: %w", filepath.Join(abs, filepath.FromSlash(first)), err))
			return
		}
		for _, i := range g.files {
			if low.skip(i) {
				return
			}
			_, name := splitDir(written[i])
			if err := from.rename(name, to, name); err != nil {
				low.set(i, &fs.PathError{Op: "rename", Path: filepath.Join(abs, filepath.FromSlash(written[i])), Err: underlying(err)})
				return
			}
		}
		// Emptied now unless a subdirectory is still there, and cheaper
		// to remove here than by the stage's RemoveAll.
		if g.dir != "." {
			pd, name := splitDir(g.dir)
			if parent, err := ws.from.mustDir(pd); err == nil {
				parent.removeDir(name)
			}
		}
	})
	return low.err
}
