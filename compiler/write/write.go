// Package write puts a rendered tree on disk so that a failure never leaves
// a half-written tree: every file is staged in a temporary directory beside
// the output, then renamed into place.
package write

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// Result says what Tree changed.
type Result struct {
	Written   []string // files created or changed
	Unchanged []string // files already identical
	Pruned    []string // files a previous build generated that are gone now
}

// Options tune Tree.
type Options struct {
	// Prune deletes files the previous build listed in its manifest that
	// this tree no longer has.
	Prune bool
}

// Tree writes tree below dir. A new dir appears whole in one rename. In an
// existing dir, each file is renamed over its old version, and files that
// gpufleet does not generate are left alone. Every check that can fail runs
// before the first rename.
func Tree(dir string, tr tree.Tree, opts ...Options) (*Result, error) {
	var opt Options
	if len(opts) > 0 {
		opt = opts[0]
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	exists, err := isDir(abs)
	if err != nil {
		return nil, err
	}
	var old []string
	if exists {
		if err := preflight(abs, tr); err != nil {
			return nil, err
		}
		if old, err = readManifest(abs); err != nil {
			return nil, err
		}
		if !opt.Prune {
			// Files an earlier build generated stay gpufleet's until
			// pruned, so the manifest keeps listing them.
			tr = keepOwned(abs, old, tr)
			old = nil
		}
	}
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	stage, err := os.MkdirTemp(parent, ".gpufleet-stage-")
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	defer os.RemoveAll(stage)

	res := &Result{}
	for _, p := range tr.Paths() {
		if exists {
			old, err := os.ReadFile(filepath.Join(abs, filepath.FromSlash(p)))
			if err == nil && bytes.Equal(old, tr[p]) {
				res.Unchanged = append(res.Unchanged, p)
				continue
			}
		}
		f := filepath.Join(stage, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(f, tr[p], 0o644); err != nil {
			return nil, err
		}
		res.Written = append(res.Written, p)
	}
	if !exists {
		if err := os.Chmod(stage, 0o755); err != nil {
			return nil, err
		}
		if err := os.Rename(stage, abs); err != nil {
			return nil, fmt.Errorf("output directory: %w", err)
		}
		return res, nil
	}
	for _, p := range res.Written {
		dst := filepath.Join(abs, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, err
		}
		if err := os.Rename(filepath.Join(stage, filepath.FromSlash(p)), dst); err != nil {
			return nil, err
		}
	}
	res.Pruned, err = prune(abs, old, tr)
	return res, err
}

func isDir(p string) (bool, error) {
	fi, err := os.Stat(p)
	switch {
	case os.IsNotExist(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("output directory: %w", err)
	case !fi.IsDir():
		return false, fmt.Errorf("output path %s exists and is not a directory", p)
	}
	return true, nil
}

// preflight finds what would stop a rename halfway: a generated file whose
// place is a directory, a directory whose place is a file, or a directory
// that cannot be written.
func preflight(abs string, tr tree.Tree) error {
	dirs := map[string]bool{abs: true}
	for _, p := range tr.Paths() {
		dst := filepath.Join(abs, filepath.FromSlash(p))
		if fi, err := os.Stat(dst); err == nil && fi.IsDir() {
			return fmt.Errorf("cannot write %s: it is a directory", dst)
		}
		for d := filepath.Dir(dst); d != abs; d = filepath.Dir(d) {
			if fi, err := os.Stat(d); err == nil && !fi.IsDir() {
				return fmt.Errorf("cannot write %s: %s is not a directory", dst, d)
			}
			dirs[d] = true
		}
	}
	for d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			probe, err := os.CreateTemp(d, ".gpufleet-probe-")
			if err != nil {
				return fmt.Errorf("output directory is not writable: %w", err)
			}
			probe.Close()
			os.Remove(probe.Name())
		}
	}
	return nil
}
