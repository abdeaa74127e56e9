package write

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// Change is one generated file that the tree on disk does not match.
type Change struct {
	Path string `json:"path"`
	// Kind is "changed", "missing" or "blocked": a symbolic link, a
	// directory or a special file is where the file goes, or something
	// other than a directory is where one of its parents goes. gpufleet
	// reads nothing through it, so a blocked change has no diff.
	Kind string `json:"kind"`
	// Diff is a unified diff from the file on disk to the generated one.
	Diff string `json:"diff"`
	// Reason says what blocks a blocked change, relative to the tree.
	Reason string `json:"reason,omitempty"`
}

// Compare reports every generated file that is missing from dir or differs
// from what the spec compiles to. Files gpufleet does not generate are not
// its business and are ignored. Like Tree, it follows no link in dir.
func Compare(dir string, tr tree.Tree) ([]Change, error) {
	out, err := openOut(dir, dir)
	if err != nil {
		return nil, err
	}
	defer out.close()
	in := newInspector(out.root)
	var changes []Change
	for _, p := range tr.Paths() {
		fi, b, err := in.look(p)
		if err != nil {
			return nil, err
		}
		if b != nil {
			changes = append(changes, Change{Path: p, Kind: "blocked", Reason: b.reason()})
			continue
		}
		if fi == nil {
			changes = append(changes, Change{Path: p, Kind: "missing", Diff: string(diff.Diff("/dev/null", nil, "b/"+p, tr[p]))})
			continue
		}
		onDisk, err := readRegular(out.root, p, fi)
		switch {
		case errors.Is(err, errTooBig):
			changes = append(changes, Change{Path: p, Kind: "changed",
				Diff: fmt.Sprintf("diff a/%s b/%s\n(the file on disk has %d bytes, too many to show)\n", p, p, fi.Size())})
		case err != nil:
			return nil, err
		case !bytes.Equal(onDisk, tr[p]):
			changes = append(changes, Change{Path: p, Kind: "changed", Diff: string(diff.Diff("a/"+p, onDisk, "b/"+p, tr[p]))})
		}
	}
	return changes, nil
}
