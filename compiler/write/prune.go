package write

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// prune deletes the files the old manifest listed that the new tree no
// longer has, then any directory that leaves empty. It deletes only what
// it can prove gpufleet wrote: a file whose bytes still have the sum the
// manifest gives or, for an entry without one, a file that opens with
// gpufleet's header. Anything else is kept and reported: a link (never
// followed), a spec file, a file a user edited or wrote.
func prune(root *os.Root, in *inspector, old []entry, tr tree.Tree, inputs specs) (removed []string, kept []Kept, err error) {
	for _, e := range old {
		if _, ok := tr[e.path]; ok {
			continue
		}
		fi, b, err := in.look(e.path)
		if err != nil {
			return removed, kept, err
		}
		if b != nil {
			kept = append(kept, Kept{e.path, b.at + " is " + b.what})
			continue
		}
		if fi == nil {
			continue // already gone
		}
		if inputs.of(fi) != "" {
			kept = append(kept, Kept{e.path, "it is a spec file"})
			continue
		}
		data, err := readRegular(root, e.path, fi)
		switch {
		case errors.Is(err, errTooBig):
			kept = append(kept, Kept{e.path, "modified since gpufleet wrote it"})
			continue
		case err != nil:
			return removed, kept, err
		case e.sum == "" && !bytes.HasPrefix(data, []byte(tree.Header)):
			kept = append(kept, Kept{e.path, "it has no gpufleet header"})
			continue
		case e.sum != "" && sum(data) != e.sum:
			kept = append(kept, Kept{e.path, "modified since gpufleet wrote it"})
			continue
		}
		if err := root.Remove(filepath.FromSlash(e.path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, kept, err
		}
		removed = append(removed, e.path)
		ps := parents(e.path)
		for i := len(ps) - 1; i >= 0; i-- {
			if root.Remove(filepath.FromSlash(ps[i])) != nil {
				break // not empty: a user's file, or a generated one
			}
		}
	}
	return removed, kept, nil
}
