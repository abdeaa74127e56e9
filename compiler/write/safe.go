package write

// The output tree is committed in the same pull request as the spec, so
// everything in it may be a stranger's: gpufleet follows no symbolic link
// below the output directory, reads and writes only regular files there,
// and goes through an os.Root or, for the generated paths, directories
// opened a component at a time with O_NOFOLLOW (handle.go), so that even a
// link swapped in after the checks cannot lead outside the tree.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// outDir is the output directory as gpufleet found it.
type outDir struct {
	abs  string
	root *os.Root // nil when the directory does not exist yet
}

func (o *outDir) close() {
	if o.root != nil {
		o.root.Close()
	}
}

// openOut checks dir and opens it if it exists; name is how errors call it
// (its absolute path if empty).
func openOut(dir, name string) (*outDir, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if name == "" {
		name = abs
	}
	if filepath.Dir(abs) == abs {
		return nil, fmt.Errorf("refusing output directory %s: it is a filesystem root", name)
	}
	if home, err := os.UserHomeDir(); err == nil && samePath(abs, home) {
		return nil, fmt.Errorf("refusing output directory %s: it is the home directory", name)
	}
	if link := linkOnPath(dir); link != "" {
		return nil, fmt.Errorf("output directory %s: %s is a symbolic link; gpufleet follows none into the output tree (pass the directory it points to)", name, link)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &outDir{abs: abs}, nil
	case err != nil:
		return nil, fmt.Errorf("output directory: %w", err)
	case !fi.IsDir():
		return nil, fmt.Errorf("output path %s exists and is not a directory", name)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	// The directory opened is the one checked, not a link swapped in since.
	rfi, err := root.Stat(".")
	if lfi, lerr := os.Lstat(abs); err != nil || lerr != nil || !lfi.IsDir() || !os.SameFile(rfi, lfi) {
		root.Close()
		return nil, fmt.Errorf("output directory %s changed while gpufleet opened it", name)
	}
	return &outDir{abs: abs, root: root}, nil
}

// linkOnPath returns the first symbolic link among the directories on the
// way to dir that a pull request could have committed: dir itself and
// every directory below the working directory (the checkout), whether dir
// is relative or an absolute path into it ($GITHUB_WORKSPACE/gitops, with
// gitops/ a committed link, redirected the step). Directories above those
// (a linked /tmp or home) are the machine's own.
func linkOnPath(dir string) string {
	clean := filepath.Clean(dir)
	steps := []string{clean}
	base, rel := "", clean
	if filepath.IsAbs(clean) {
		rel = ""
		if wd, err := os.Getwd(); err == nil {
			if r, err := filepath.Rel(wd, clean); err == nil && r != "." && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				base, rel = wd, r
			}
		}
	}
	if rel != "" {
		parts := strings.Split(rel, string(filepath.Separator))
		steps = steps[:0]
		for i := range parts {
			if parts[i] != ".." {
				steps = append(steps, filepath.Join(base, filepath.Join(parts[:i+1]...)))
			}
		}
	}
	for _, s := range steps {
		fi, err := os.Lstat(s)
		if err != nil {
			return "" // missing: nothing below it exists either
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return s
		}
	}
	return ""
}

func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// A blocker is what keeps gpufleet from a path in the tree: the path or
// one of its parents is a link, or not what gpufleet would put there.
type blocker struct {
	path string // the generated path
	at   string // the path in the way: path itself or a parent
	what string // "a symbolic link", "a directory", "not a directory", ...
}

// writeErr is build's error: abs is the output directory.
func (b *blocker) writeErr(abs string) error {
	dst := filepath.Join(abs, filepath.FromSlash(b.path))
	where := "it"
	if b.at != b.path {
		where = filepath.Join(abs, filepath.FromSlash(b.at))
	}
	msg := fmt.Sprintf("cannot write %s: %s is %s", dst, where, b.what)
	if b.what == linkWhat {
		msg += "; gpufleet follows no symbolic link in the output tree"
	}
	return errors.New(msg)
}

// reason is diff's account, relative to the tree.
func (b *blocker) reason() string {
	if b.at == b.path {
		return "is " + b.what + ", gpufleet writes a regular file"
	}
	return b.at + " is " + b.what + ", gpufleet writes a directory there"
}

const linkWhat = "a symbolic link"

// errTooBig is a file on disk larger than any gpufleet generates.
var errTooBig = errors.New("file too large")

// maxRead bounds what gpufleet reads of a file in the tree, far above any
// file it generates.
const maxRead = 16 << 20

// readRegular reads the regular file look found at p; the file opened must
// be that one, not one swapped in since.
func readRegular(root *os.Root, p string, fi fs.FileInfo) ([]byte, error) {
	if fi.Size() > maxRead {
		return nil, errTooBig
	}
	f, err := root.Open(filepath.FromSlash(p))
	if err != nil {
		return nil, err
	}
	return readOpened(f, p, fi)
}

// readIn is readRegular for the file name in the directory h.
func readIn(h dirH, name, p string, fi fs.FileInfo) ([]byte, error) {
	return readInLimit(h, name, p, fi, maxRead)
}

// readInLimit is readIn of a file of at most limit bytes.
func readInLimit(h dirH, name, p string, fi fs.FileInfo, limit int64) ([]byte, error) {
	if fi.Size() > limit {
		return nil, errTooBig
	}
	f, err := h.open(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: underlying(err)}
	}
	return readOpenedLimit(f, p, fi, limit)
}

func readOpened(f file, p string, fi fs.FileInfo) ([]byte, error) {
	return readOpenedLimit(f, p, fi, maxRead)
}

func readOpenedLimit(f file, p string, fi fs.FileInfo, limit int64) ([]byte, error) {
	defer f.Close()
	if ofi, err := f.Stat(); err != nil || !sameFile(fi, ofi) {
		return nil, fmt.Errorf("%s changed while gpufleet read it", p)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = errTooBig
	}
	return data, err
}

// specs are the input spec files: gpufleet never writes or deletes one.
type specs []struct {
	name string
	fi   fs.FileInfo
}

// statSpecs finds the files named, and the files directly in the
// directories named (a CUE package).
func statSpecs(names []string) specs {
	var s specs
	add := func(name string) {
		if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() {
			s = append(s, struct {
				name string
				fi   fs.FileInfo
			}{name, fi})
		}
	}
	for _, n := range names {
		if fi, err := os.Stat(n); err == nil && fi.IsDir() {
			entries, _ := os.ReadDir(n)
			for _, e := range entries {
				add(filepath.Join(n, e.Name()))
			}
			continue
		}
		add(n)
	}
	return s
}

// of returns the spec file fi is, or "".
func (s specs) of(fi fs.FileInfo) string {
	for _, sp := range s {
		if sameFile(sp.fi, fi) {
			return sp.name
		}
	}
	return ""
}

// parents lists p's parent directories, nearest last.
func parents(p string) []string {
	var ds []string
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		ds = append([]string{d}, ds...)
	}
	return ds
}
