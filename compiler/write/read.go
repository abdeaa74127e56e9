package write

import (
	"errors"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// ErrNoTree is Read's error for a directory with no manifest: not a tree
// gpufleet built.
var ErrNoTree = errors.New("no " + ManifestPath + ": not a tree gpufleet built")

// Read returns the files of the tree gpufleet built in dir that want
// keeps, as its manifest lists them, read as Compare reads: following no
// link, a file at most maxRead bytes. A listed file that is missing,
// blocked or too big is left out, as if never written; the manifest's own
// checks keep every path inside dir.
func Read(dir string, want func(path string) bool) (tree.Tree, error) {
	out, err := openOut(dir, dir)
	if err != nil {
		return nil, err
	}
	defer out.close()
	if out.root == nil {
		return nil, ErrNoTree
	}
	base, err := openBase(out.root, ".")
	if err != nil {
		return nil, err
	}
	defer base.close()
	if fi, _, err := lookFile(base, ManifestPath, ManifestPath); err != nil || fi == nil {
		return nil, ErrNoTree
	}
	es, err := readManifest(base)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range es {
		if want(e.path) {
			paths = append(paths, e.path)
		}
	}
	data, errs := make([][]byte, len(paths)), make([]error, len(paths))
	scanAny(base, paths, func(k int, h dirH, name string, f found, _ []byte) {
		if f.err != nil || f.fi == nil || f.b != nil {
			errs[k] = f.err
			return
		}
		b, err := readIn(h, name, paths[k], f.fi)
		if errors.Is(err, errTooBig) {
			return
		}
		data[k], errs[k] = b, err
	})
	t := tree.Tree{}
	for k, p := range paths {
		if errs[k] != nil {
			return nil, errs[k]
		}
		if data[k] != nil {
			t[p] = data[k]
		}
	}
	return t, nil
}
