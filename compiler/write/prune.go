package write

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// A prunePlan is what prune deletes, decided before the first rename so
// that a prune that cannot be done stops the build while the tree is
// still the old one.
type prunePlan struct {
	del  []planned
	kept []Kept
}

type planned struct {
	path string
	fi   fs.FileInfo
}

// planPrune picks the files the old manifest listed that the new tree no
// longer has. It picks only what it can prove gpufleet wrote: a file whose
// bytes still have the sum the manifest gives or, for an entry without
// one, a file that opens with gpufleet's header. Anything else is kept and
// reported: a link (never followed), a spec file, a file a user edited or
// wrote. A picked file's directory must be writable, or nothing is done.
// The files are read and summed on every CPU; what is kept, and the first
// error, follow the manifest's order.
func planPrune(out *outDir, base dirH, old []entry, tr tree.Tree, inputs specs) (*prunePlan, error) {
	gone := unlisted(old, tr)
	type verdict struct {
		f   found
		why string // why the file is not provably gpufleet's
		err error
	}
	vs := make([]verdict, len(gone))
	scanAny(base, pathsOf(gone), func(k int, h dirH, name string, f found, _ []byte) {
		vs[k].f = f
		if f.fi != nil && inputs.of(f.fi) == "" {
			vs[k].why, vs[k].err = owned(h, name, gone[k], f.fi)
		}
	})
	plan := &prunePlan{}
	var del []string
	for k, e := range gone {
		switch v := vs[k]; {
		case v.f.err != nil:
			return nil, v.f.err
		case v.f.b != nil && v.f.b.at == e.path && v.f.b.what == "a directory":
			// A directory (an older or hand-written manifest's entry) is
			// not a file gpufleet wrote: removeEmptied removes it once its
			// files are gone and nothing else is in it. Reported as left,
			// it was then removed.
		case v.f.b != nil:
			plan.kept = append(plan.kept, Kept{e.path, v.f.b.at + " is " + v.f.b.what})
		case v.f.fi == nil:
			// already gone
		case inputs.of(v.f.fi) != "":
			plan.kept = append(plan.kept, Kept{e.path, "it is a spec file"})
		case v.err != nil:
			return nil, v.err
		case v.why != "":
			plan.kept = append(plan.kept, Kept{e.path, v.why})
		default:
			plan.del = append(plan.del, planned{e.path, v.f.fi})
			del = append(del, e.path)
		}
	}
	slices.Sort(del)
	if p, err := probeDirs(base, del, false); err != nil {
		return nil, fmt.Errorf("cannot prune %s: its directory is not writable: %w", filepath.Join(out.abs, filepath.FromSlash(p)), err)
	}
	return plan, nil
}

// owned says why the file name in h, which the manifest lists as e, is not
// provably as gpufleet wrote it, or "" if it is.
func owned(h dirH, name string, e entry, fi fs.FileInfo) (string, error) {
	data, err := readIn(h, name, e.path, fi)
	switch {
	case errors.Is(err, errTooBig):
		return "modified since gpufleet wrote it", nil
	case err != nil:
		return "", err
	case e.sum == "" && !bytes.HasPrefix(data, []byte(tree.Header)):
		return "it has no gpufleet header", nil
	case e.sum != "" && sum(data) != e.sum:
		return "modified since gpufleet wrote it", nil
	}
	return "", nil
}

// apply deletes the planned files, on every CPU, then any directory that
// leaves empty. A file that changed since it was planned is kept; one that
// cannot be deleted is unpruned, with the reason. The lists follow the
// plan's order.
func (plan *prunePlan) apply(base dirH) (removed []string, kept, unpruned []Kept) {
	const modified = "modified since gpufleet wrote it"
	type outcome struct{ removed, kept, unpruned string }
	outs := make([]outcome, len(plan.del))
	paths := make([]string, len(plan.del))
	for i, d := range plan.del {
		paths[i] = d.path
	}
	scanAny(base, paths, func(k int, h dirH, name string, f found, _ []byte) {
		d, o := plan.del[k], &outs[k]
		switch {
		case f.err != nil:
			o.unpruned = reason(f.err)
		case f.b != nil && f.b.at == d.path:
			o.kept = modified // not a regular file now
		case f.b != nil:
			o.kept = f.b.at + " is " + f.b.what
		case f.fi == nil:
			// gone already
		case !sameFile(f.fi, d.fi) || f.fi.Size() != d.fi.Size() || !f.fi.ModTime().Equal(d.fi.ModTime()):
			o.kept = modified
		default:
			if err := h.remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				o.unpruned = reason(err)
			} else {
				o.removed = d.path
			}
		}
	})
	for k, d := range plan.del {
		switch o := outs[k]; {
		case o.removed != "":
			removed = append(removed, d.path)
		case o.kept != "":
			kept = append(kept, Kept{d.path, o.kept})
		case o.unpruned != "":
			unpruned = append(unpruned, Kept{d.path, o.unpruned})
		}
	}
	removeEmptied(base, removed)
	return removed, kept, unpruned
}

// removeEmptied removes the directories of files, and their parents, that
// are empty now, the deepest first and each no further up than a
// directory that is not (a user's file, or a generated one).
func removeEmptied(base dirH, files []string) {
	byDepth := map[int]map[string]bool{}
	deepest := 0
	try := func(d string) {
		if d == "." {
			return
		}
		n := depth(d)
		if byDepth[n] == nil {
			byDepth[n] = map[string]bool{}
		}
		byDepth[n][d] = true
		deepest = max(deepest, n)
	}
	for _, p := range files {
		d, _ := splitDir(p)
		try(d)
	}
	w := newWalker(base)
	defer w.close()
	for n := deepest; n > 0; n-- {
		ds := slices.Sorted(maps.Keys(byDepth[n]))
		for _, d := range ds {
			pd, name := splitDir(d)
			if parent, err := w.mustDir(pd); err == nil && parent.removeDir(name) == nil {
				try(pd)
			}
		}
	}
}

// reason is err without the operation and path a PathError adds.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// PruneError is a prune that failed after the tree was written: the tree
// is the new one, but for the files it lists, which are still there.
type PruneError struct {
	Dir      string
	Unpruned []Kept
}

func (e *PruneError) Error() string {
	files := make([]string, len(e.Unpruned))
	for i, k := range e.Unpruned {
		files[i] = k.Path + " (" + k.Reason + ")"
	}
	noun := "files"
	if len(files) == 1 {
		noun = "file"
	}
	return fmt.Sprintf("%s was updated, but %d %s it no longer generates could not be deleted: %s", e.Dir, len(files), noun, strings.Join(files, ", "))
}
