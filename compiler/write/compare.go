package write

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/gpufleet/gpufleet/compiler/internal/par"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// Change is one generated file that the tree on disk does not match.
type Change struct {
	Path string `json:"path"`
	// Kind is "changed", "missing", "removed" or "blocked". A removed
	// file is one an earlier build generated (its manifest lists it) that
	// the spec no longer generates: 'build --prune' deletes it. Blocked
	// means a symbolic link, a directory or a special file is where the
	// file goes, or something other than a directory is where one of its
	// parents goes; gpufleet reads nothing through it, so a blocked
	// change has no diff.
	Kind string `json:"kind"`
	// Diff is a unified diff from the file on disk to the generated one.
	Diff string `json:"diff"`
	// Reason says what blocks a blocked change, relative to the tree.
	Reason string `json:"reason,omitempty"`
}

// Compare reports every generated file that is missing from dir or differs
// from what the spec compiles to. Files gpufleet does not generate are not
// its business and are ignored. Like Tree, it follows no link in dir.
func Compare(dir string, tr tree.Tree) ([]Change, error) { return compareTree(dir, tr, true) }

// Changes is Compare without the diffs: the same files, found the same
// way (so 'plan' and 'diff' never disagree on what is stale), for a
// caller that shows no lines.
func Changes(dir string, tr tree.Tree) ([]Change, error) { return compareTree(dir, tr, false) }

func compareTree(dir string, tr tree.Tree, diffs bool) ([]Change, error) {
	out, err := openOut(dir, dir)
	if err != nil {
		return nil, err
	}
	defer out.close()
	paths := tr.Paths()
	if err := checkPaths(paths); err != nil {
		return nil, err
	}
	// Each path's change or error, found on every CPU; the first error
	// in path order is Compare's, as when it looked one path at a time.
	chs, errs := make([]*Change, len(paths)), make([]error, len(paths))
	each := func(i int, h dirH, name string, f found, buf []byte) {
		p := paths[i]
		switch {
		case f.err != nil:
			errs[i] = f.err
		case f.b != nil:
			chs[i] = &Change{Path: p, Kind: "blocked", Reason: f.b.reason()}
		case f.fi == nil:
			chs[i] = &Change{Path: p, Kind: "missing"}
			if diffs {
				chs[i].Diff = string(diff.Diff("/dev/null", nil, "b/"+p, tr[p]))
			}
		default:
			chs[i], errs[i] = changed(h, name, p, f.fi, tr[p], buf, diffs)
		}
	}
	var base dirH // nil: no tree yet
	if out.root == nil {
		par.Each(len(paths), func(i int) { each(i, nil, "", found{}, nil) })
	} else {
		if base, err = openBase(out.root, "."); err != nil {
			return nil, err
		}
		defer base.close()
		scan(base, paths, nil, each)
	}
	var changes []Change
	for i := range paths {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if chs[i] != nil {
			changes = append(changes, *chs[i])
		}
	}
	// Without these, a tree built after a class was removed stayed stale
	// for ever, and 'gpufleet build' alone could not fix it.
	removed, err := removedChanges(base, tr, diffs)
	return append(changes, removed...), err
}

// removedChanges lists the files the manifest in base lists that tr no
// longer has, in the manifest's order, with their diffs.
func removedChanges(base dirH, tr tree.Tree, diffs bool) ([]Change, error) {
	old, err := readManifest(base)
	if err != nil {
		return nil, err
	}
	gone := unlisted(old, tr)
	chs, errs := make([]*Change, len(gone)), make([]error, len(gone))
	scanAny(base, pathsOf(gone), func(k int, h dirH, name string, f found, _ []byte) {
		p := gone[k].path
		if f.err != nil || f.fi == nil || f.b != nil {
			errs[k] = f.err // or gone, or not a file gpufleet would touch
			return
		}
		ch := &Change{Path: p, Kind: "removed"}
		if !diffs {
			chs[k] = ch
			return
		}
		switch onDisk, err := readIn(h, name, p, f.fi); {
		case errors.Is(err, errTooBig):
			ch.Diff = fmt.Sprintf("diff a/%s /dev/null\n(the file on disk has %d bytes, too many to show)\n", p, f.fi.Size())
		case err != nil:
			errs[k] = err
			return
		default:
			ch.Diff = string(diff.Diff("a/"+p, onDisk, "/dev/null", nil))
		}
		chs[k] = ch
	})
	var changes []Change
	for k := range gone {
		if errs[k] != nil {
			return nil, errs[k]
		}
		if chs[k] != nil {
			changes = append(changes, *chs[k])
		}
	}
	return changes, nil
}

// changed is the change to the regular file name in h (p in the tree),
// nil if it holds want. Size, then the bytes a piece at a time: only a
// file that differs is read whole, for its diff (if diffs).
func changed(h dirH, name, p string, fi fs.FileInfo, want, buf []byte, diffs bool) (*Change, error) {
	if same, err := sameContent(h, name, p, fi, want, buf); err != nil || same {
		return nil, err
	}
	if !diffs {
		return &Change{Path: p, Kind: "changed"}, nil
	}
	onDisk, err := readIn(h, name, p, fi)
	switch {
	case errors.Is(err, errTooBig):
		return &Change{Path: p, Kind: "changed",
			Diff: fmt.Sprintf("diff a/%s b/%s\n(the file on disk has %d bytes, too many to show)\n", p, p, fi.Size())}, nil
	case err != nil:
		return nil, err
	}
	return &Change{Path: p, Kind: "changed", Diff: string(diff.Diff("a/"+p, onDisk, "b/"+p, want))}, nil
}
