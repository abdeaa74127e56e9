package write

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
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
func planPrune(out *outDir, in *inspector, old []entry, tr tree.Tree, inputs specs) (*prunePlan, error) {
	plan := &prunePlan{}
	dirs := map[string]string{} // a directory, and the first file to prune in it
	for _, e := range old {
		if _, ok := tr[e.path]; ok {
			continue
		}
		fi, b, err := in.look(e.path)
		if err != nil {
			return nil, err
		}
		if b != nil {
			plan.kept = append(plan.kept, Kept{e.path, b.at + " is " + b.what})
			continue
		}
		if fi == nil {
			continue // already gone
		}
		if inputs.of(fi) != "" {
			plan.kept = append(plan.kept, Kept{e.path, "it is a spec file"})
			continue
		}
		data, err := readRegular(out.root, e.path, fi)
		switch {
		case errors.Is(err, errTooBig):
			plan.kept = append(plan.kept, Kept{e.path, "modified since gpufleet wrote it"})
			continue
		case err != nil:
			return nil, err
		case e.sum == "" && !bytes.HasPrefix(data, []byte(tree.Header)):
			plan.kept = append(plan.kept, Kept{e.path, "it has no gpufleet header"})
			continue
		case e.sum != "" && sum(data) != e.sum:
			plan.kept = append(plan.kept, Kept{e.path, "modified since gpufleet wrote it"})
			continue
		}
		plan.del = append(plan.del, planned{e.path, fi})
		if _, ok := dirs[path.Dir(e.path)]; !ok {
			dirs[path.Dir(e.path)] = e.path
		}
	}
	for d, p := range dirs {
		if err := probe(out.root, d); err != nil {
			return nil, fmt.Errorf("cannot prune %s: its directory is not writable: %w", filepath.Join(out.abs, filepath.FromSlash(p)), err)
		}
	}
	return plan, nil
}

// apply deletes the planned files, then any directory that leaves empty.
// A file that changed since it was planned is kept; one that cannot be
// deleted is unpruned, with the reason.
func (plan *prunePlan) apply(root *os.Root) (removed []string, kept, unpruned []Kept) {
	for _, d := range plan.del {
		name := filepath.FromSlash(d.path)
		fi, err := root.Lstat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err == nil && (!sameFile(fi, d.fi) || fi.Size() != d.fi.Size() || !fi.ModTime().Equal(d.fi.ModTime())):
			kept = append(kept, Kept{d.path, "modified since gpufleet wrote it"})
			continue
		}
		if err == nil {
			err = root.Remove(name)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			unpruned = append(unpruned, Kept{d.path, reason(err)})
			continue
		}
		removed = append(removed, d.path)
		ps := parents(d.path)
		for i := len(ps) - 1; i >= 0; i-- {
			if root.Remove(filepath.FromSlash(ps[i])) != nil {
				break // not empty: a user's file, or a generated one
			}
		}
	}
	return removed, kept, unpruned
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
