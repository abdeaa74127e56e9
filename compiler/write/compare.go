package write

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// Change is one generated file that the tree on disk does not match.
type Change struct {
	Path string `json:"path"`
	// Kind is "changed" or "missing".
	Kind string `json:"kind"`
	// Diff is a unified diff from the file on disk to the generated one.
	Diff string `json:"diff"`
}

// Compare reports every generated file that is missing from dir or differs
// from what the spec compiles to. Files gpufleet does not generate are not
// its business and are ignored.
func Compare(dir string, tr tree.Tree) ([]Change, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, errors.New("output path " + dir + " exists and is not a directory")
	}
	var changes []Change
	for _, p := range tr.Paths() {
		onDisk, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			changes = append(changes, Change{Path: p, Kind: "missing", Diff: string(diff.Diff("/dev/null", nil, "b/"+p, tr[p]))})
		case err != nil:
			return nil, err
		case !bytes.Equal(onDisk, tr[p]):
			changes = append(changes, Change{Path: p, Kind: "changed", Diff: string(diff.Diff("a/"+p, onDisk, "b/"+p, tr[p]))})
		}
	}
	return changes, nil
}
