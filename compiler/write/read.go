package write

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// ErrNoTree is Open's error for a directory with no manifest: not a tree
// gpufleet built.
var ErrNoTree = errors.New("no " + ManifestPath + ": not a tree gpufleet built")

// MaxRead bounds what Read reads of a file unless told more: far above any
// file gpufleet generates but a big fleet's report.
const MaxRead = maxRead

// Entry is one file a manifest lists, with the SHA-256 gpufleet wrote it
// with ("" in a manifest from before sums were kept).
type Entry struct{ Path, Sum string }

// Committed is a tree gpufleet built, as its manifest lists it.
type Committed struct {
	dir string
	// Entries are the manifest's, by path.
	Entries []Entry
}

// openTree opens the tree in dir, which must exist, as Compare does;
// done closes it.
func openTree(dir string) (base dirH, done func(), err error) {
	out, err := openOut(dir, dir)
	if err != nil {
		return nil, nil, err
	}
	if out.root == nil {
		out.close()
		return nil, nil, ErrNoTree
	}
	if base, err = openBase(out.root, "."); err != nil {
		out.close()
		return nil, nil, err
	}
	return base, func() { base.close(); out.close() }, nil
}

// Open reads the manifest of the tree gpufleet built in dir.
func Open(dir string) (*Committed, error) {
	base, done, err := openTree(dir)
	if err != nil {
		return nil, err
	}
	defer done()
	switch fi, bl, err := lookFile(base, ManifestPath, ManifestPath); {
	case err != nil:
		return nil, err
	case bl != nil:
		// There, but nothing gpufleet reads: say so, not "no tree".
		return nil, fmt.Errorf("%s: %s", ManifestPath, bl.reason())
	case fi == nil:
		return nil, ErrNoTree
	}
	es, err := readManifest(base)
	if err != nil {
		return nil, err
	}
	return &Committed{dir: dir, Entries: entriesOf(es)}, nil
}

// Entries is what a manifest's bytes list, by path.
func Entries(manifest []byte) ([]Entry, error) {
	es, err := parseManifest(manifest)
	return entriesOf(es), err
}

func entriesOf(es []entry) []Entry {
	out := make([]Entry, len(es))
	for i, e := range es {
		out[i] = Entry{e.path, e.sum}
	}
	// gpufleet writes a manifest in path order; one edited by hand may
	// not be.
	cmp := func(a, b Entry) int { return strings.Compare(a.Path, b.Path) }
	if !slices.IsSortedFunc(out, cmp) {
		slices.SortFunc(out, cmp)
	}
	return out
}

// Read returns the listed files for which limit gives a size, at most that
// many bytes each (0: not read), read as Compare reads: following no link.
// A listed file that is missing, blocked or too big is left out, as if
// never written; the manifest's own checks keep every path inside the
// tree.
func (c *Committed) Read(limit func(path string) int64) (tree.Tree, error) {
	var paths []string
	var limits []int64
	for _, e := range c.Entries {
		if n := limit(e.Path); n > 0 {
			paths, limits = append(paths, e.Path), append(limits, n)
		}
	}
	t := tree.Tree{}
	if len(paths) == 0 {
		return t, nil
	}
	base, done, err := openTree(c.dir)
	if err != nil {
		return nil, err
	}
	defer done()
	data, errs := make([][]byte, len(paths)), make([]error, len(paths))
	scan(base, paths, nil, func(k int, h dirH, name string, f found, _ []byte) {
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
