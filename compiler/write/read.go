package write

import (
	"errors"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// ErrNoTree is Read's error for a directory with no manifest: not a tree
// gpufleet built.
var ErrNoTree = errors.New("no " + ManifestPath + ": not a tree gpufleet built")

// ReadManifest returns the files the manifest of the tree in dir lists,
// each with the SHA-256 gpufleet wrote it with ("" in a manifest from
// before sums were kept).
func ReadManifest(dir string) (map[string]string, error) {
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
	return sumsOf(es), err
}

// Sums is what a manifest's bytes list, as ReadManifest returns it.
func Sums(manifest []byte) (map[string]string, error) {
	es, err := parseManifest(manifest)
	return sumsOf(es), err
}

func sumsOf(es []entry) map[string]string {
	m := make(map[string]string, len(es))
	for _, e := range es {
		m[e.path] = e.sum
	}
	return m
}

// MaxRead bounds what Read reads of a file unless told more: far above any
// file gpufleet generates but a big fleet's report.
const MaxRead = maxRead

// Read returns the files of the tree gpufleet built in dir for which limit
// gives a size, at most that many bytes each (0: not read), as its
// manifest lists them, read as Compare reads: following no link. A listed
// file that is missing, blocked or too big is left out, as if never
// written; the manifest's own checks keep every path inside dir.
func Read(dir string, limit func(path string) int64) (tree.Tree, error) {
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
	var limits []int64
	for _, e := range es {
		if n := limit(e.path); n > 0 {
			paths, limits = append(paths, e.path), append(limits, n)
		}
	}
	data, errs := make([][]byte, len(paths)), make([]error, len(paths))
	scanAny(base, paths, func(k int, h dirH, name string, f found, _ []byte) {
		if f.err != nil || f.fi == nil || f.b != nil {
			errs[k] = f.err
			return
		}
		b, err := readInLimit(h, name, paths[k], f.fi, limits[k])
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
