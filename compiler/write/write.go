// Package write puts a rendered tree on disk so that a failure never leaves
// a half-written tree: every file is staged in a temporary directory, then
// renamed into place. The tree on disk may come from a stranger's pull
// request, so nothing in it is trusted (see safe.go).
package write

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// Result says what Tree changed.
type Result struct {
	Written   []string // files created or changed
	Unchanged []string // files already identical
	Pruned    []string // files a previous build generated that are gone now
	Kept      []Kept   // files prune could not prove gpufleet wrote
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
}

const stagePrefix = ".gpufleet-stage-"

// Tree writes tree below dir. A new dir appears whole in one rename. In an
// existing dir, each file is renamed over its old version, and files that
// gpufleet does not generate are left alone. Every check that can fail runs
// before the first rename. A symbolic link, or anything but a directory or a
// regular file, on the way to a generated path is refused (see safe.go).
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
		return writeNew(out.abs, tr)
	}
	in := newInspector(out.root)
	inputs := statSpecs(opt.Inputs)
	if err := preflight(out, in, tr, inputs); err != nil {
		return nil, err
	}
	old, err := readManifest(out.root, in)
	if err != nil {
		return nil, err
	}
	if !opt.Prune {
		// Files an earlier build generated stay gpufleet's until
		// pruned, so the manifest keeps listing them.
		tr = keepOwned(in, old, tr)
		old = nil
	}

	// Staged inside the tree, so that each rename stays below the root.
	stage := stagePrefix + rand.Text()
	if err := out.root.Mkdir(stage, 0o700); err != nil {
		return nil, fmt.Errorf("output directory is not writable: %w", err)
	}
	defer out.root.RemoveAll(stage)
	res := &Result{}
	for _, p := range tr.Paths() {
		if fi, _, _ := in.look(p); fi != nil && fi.Size() == int64(len(tr[p])) {
			if old, err := readRegular(out.root, p, fi); err == nil && bytes.Equal(old, tr[p]) {
				res.Unchanged = append(res.Unchanged, p)
				continue
			}
		}
		f := filepath.FromSlash(path.Join(stage, p))
		if err := out.root.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return nil, err
		}
		if err := out.root.WriteFile(f, tr[p], 0o644); err != nil {
			return nil, err
		}
		res.Written = append(res.Written, p)
	}
	for _, p := range res.Written {
		dst := filepath.FromSlash(p)
		if err := out.root.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, err
		}
		if err := out.root.Rename(filepath.FromSlash(path.Join(stage, p)), dst); err != nil {
			return nil, err
		}
	}
	res.Pruned, res.Kept, err = prune(out.root, in, old, tr, inputs)
	return res, err
}

// writeNew stages the whole tree beside abs and renames it into place.
func writeNew(abs string, tr tree.Tree) (*Result, error) {
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	stage, err := os.MkdirTemp(parent, stagePrefix)
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	defer os.RemoveAll(stage)
	res := &Result{}
	for _, p := range tr.Paths() {
		f := filepath.Join(stage, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(f, tr[p], 0o644); err != nil {
			return nil, err
		}
		res.Written = append(res.Written, p)
	}
	if err := os.Chmod(stage, 0o755); err != nil {
		return nil, err
	}
	if err := os.Rename(stage, abs); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	return res, nil
}

// preflight finds what would stop a rename halfway or lead it astray: a
// link, a directory or a special file where a generated file goes, a file
// where a directory goes, a spec file at a generated path, or a directory
// that cannot be written.
func preflight(out *outDir, in *inspector, tr tree.Tree, inputs specs) error {
	dirs := map[string]bool{".": true}
	for _, p := range tr.Paths() {
		fi, b, err := in.look(p)
		switch {
		case err != nil:
			return fmt.Errorf("cannot write %s: %w", filepath.Join(out.abs, filepath.FromSlash(p)), err)
		case b != nil:
			return b.writeErr(out.abs)
		case fi != nil && inputs.of(fi) != "":
			return fmt.Errorf("cannot write %s: it is the spec file %s", filepath.Join(out.abs, filepath.FromSlash(p)), inputs.of(fi))
		}
		for _, d := range parents(p) {
			dirs[d] = true
		}
	}
	for d := range dirs {
		if fi, err := out.root.Lstat(filepath.FromSlash(d)); err != nil || !fi.IsDir() {
			continue // created by the rename; look has vetted what exists
		}
		probe := filepath.FromSlash(path.Join(d, ".gpufleet-probe-"+rand.Text()))
		f, err := out.root.OpenFile(probe, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return fmt.Errorf("output directory is not writable: %w", err)
		}
		f.Close()
		out.root.Remove(probe)
	}
	return nil
}
