package write

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// rebuild writes tr into the existing tree out, which Tree has locked:
// it looks at every generated path and compares its bytes on every CPU,
// refuses what preflight refuses, stages the files that differ inside the
// tree and renames them into place.
func rebuild(out *outDir, tr tree.Tree, opt *Options) (*Result, error) {
	base, err := openBase(out.root, ".")
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	defer base.close()
	inputs := statSpecs(opt.Inputs)
	// The manifest first, so that the tree scanned is the one written;
	// its error still comes after preflight's.
	old, manifestErr := readManifest(base)
	if manifestErr == nil && !opt.Prune {
		// Files an earlier build generated stay gpufleet's until
		// pruned, so the manifest keeps listing them.
		tr = keepOwned(base, old, tr)
		old = nil
	}
	paths := tr.Paths()
	if err := checkPaths(paths); err != nil {
		return nil, err
	}
	seen, same := make([]found, len(paths)), make([]bool, len(paths))
	scan(base, paths, opt.stopped, func(i int, h dirH, name string, f found, buf []byte) {
		seen[i] = f
		if f.fi != nil {
			s, err := sameContent(h, name, paths[i], f.fi, tr[paths[i]], buf)
			same[i] = err == nil && s // one that cannot be read is written
		}
	})
	if opt.stopped() {
		return nil, ErrInterrupted
	}
	if err := preflight(out, paths, seen, inputs); err != nil {
		return nil, err
	}
	res := &Result{}
	for i, p := range paths {
		if same[i] {
			res.Unchanged = append(res.Unchanged, p)
		} else {
			res.Written = append(res.Written, p)
		}
	}
	// Only a directory that a rename goes into (or makes a directory in)
	// can stop one halfway: an unchanged rebuild probes none.
	if _, err := probeDirs(base, res.Written, true); err != nil {
		return nil, fmt.Errorf("output directory is not writable: %w", err)
	}
	if manifestErr != nil {
		return nil, manifestErr
	}
	plan, err := planPrune(out, base, old, tr, inputs)
	if err != nil {
		return nil, err
	}
	res.Kept = plan.kept
	if len(res.Written) == 0 && len(plan.del) == 0 {
		return res, nil // nothing to stage: a read-only tree up to date builds
	}

	// Staged inside the tree, so that each rename stays below the root.
	st, err := newStage(out.root)
	if err != nil {
		return nil, fmt.Errorf("output directory is not writable: %w", err)
	}
	defer st.remove()
	staged, err := openBase(out.root, st.path("."))
	if err != nil {
		return nil, fmt.Errorf("output directory is not writable: %w", err)
	}
	defer staged.close()
	if err := writeFiles(staged, tr, res.Written, out.abs, opt); err != nil {
		return nil, err
	}
	if opt.stopped() {
		return nil, ErrInterrupted
	}
	if beforeCommit != nil {
		beforeCommit()
	}
	// The manifest is the commit point, renamed last: until then it is
	// the old one, which lists every file the old tree had, so a build
	// killed at any moment (SIGKILL cannot be caught) leaves a tree that
	// diff calls out of date and that the same build, run again,
	// completes and prunes. Renamed first, it dropped the stale files
	// before prune removed them, and no later build could.
	files, manifest := withoutManifest(res.Written)
	if err := commit(staged, base, files, out.abs); err != nil {
		return nil, err
	}
	killPoint("renamed")
	var kept []Kept
	res.Pruned, kept, res.Unpruned = plan.apply(base)
	res.Kept = append(res.Kept, kept...)
	killPoint("pruned")
	if manifest {
		if err := commit(staged, base, []string{ManifestPath}, out.abs); err != nil {
			return nil, err
		}
	}
	if len(res.Unpruned) > 0 {
		return res, &PruneError{Dir: out.abs, Unpruned: res.Unpruned}
	}
	return res, nil
}

// preflight finds what would stop a rename halfway or lead it astray: a
// link, a directory or a special file where a generated file goes, a file
// where a directory goes, or a spec file at a generated path; found is
// what scan found at each of paths. The first in path order is the error.
func preflight(out *outDir, paths []string, found []found, inputs specs) error {
	for i, p := range paths {
		switch f := found[i]; {
		case f.err != nil:
			return fmt.Errorf("cannot write %s: %w", filepath.Join(out.abs, filepath.FromSlash(p)), f.err)
		case f.b != nil:
			return f.b.writeErr(out.abs)
		case f.fi != nil && inputs.of(f.fi) != "":
			return fmt.Errorf("cannot write %s: it is the spec file %s", filepath.Join(out.abs, filepath.FromSlash(p)), inputs.of(f.fi))
		}
	}
	return nil
}

// withoutManifest is written less the manifest, and whether it held it.
func withoutManifest(written []string) ([]string, bool) {
	i := slices.Index(written, ManifestPath)
	if i < 0 {
		return written, false
	}
	return slices.Delete(slices.Clone(written), i, i+1), true
}

// killPoint, if set by a test, runs at the named moment of a rebuild's
// commit, to see the tree a SIGKILL there would leave.
var killPoint = func(string) {}
