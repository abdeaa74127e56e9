package write

// Looking a path up from the root again for every file cost a build of a
// big fleet seconds: os.Root resolves each path a component at a time. So
// files are made, read and renamed by name in a directory opened once, and
// directories are opened a component at a time, never through a link, by a
// walker that keeps the last path open for the next, usually a sibling.

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// A dirH is an open directory in the output tree or its stage. Names are
// single path components; none is followed if it is a link.
type dirH interface {
	// openDir opens the directory name; a link or anything but a
	// directory is an error.
	openDir(name string) (dirH, error)
	mkdir(name string) error
	lstat(name string) (fs.FileInfo, error)
	// open opens name for reading, not through a link, and never waits
	// (a named pipe swapped in since lstat).
	open(name string) (file, error)
	// create makes name, which must not exist, holding data.
	create(name string, data []byte, perm fs.FileMode) error
	remove(name string) error
	// removeDir removes the directory name if it is empty.
	removeDir(name string) error
	// rename moves name to toName in to, a handle from the same tree.
	rename(name string, to dirH, toName string) error
	close()
}

// A file is a file opened for reading by dirH.open.
type file interface {
	io.Reader
	Stat() (fs.FileInfo, error)
	Close() error
}

// openBase opens the directory name below root, which every path is then
// looked up from; it is openRootDir unless the platform has openat.
var openBase = openRootDir

// A walker opens the directories below base. Each goroutine has its own.
type walker struct {
	base  dirH
	names []string // the components of the path open now
	dirs  []dirH   // dirs[i] is names[:i+1]
	// mkdir makes each missing directory rather than report it.
	mkdir bool
	// missAt is the last directory found missing or blocked, and what
	// was found, so that its siblings need no syscall to learn it.
	missAt  string
	missB   *blocker
	missErr error
}

func newWalker(base dirH) *walker { return &walker{base: base} }

// dir opens the directory at slash path d ("." for base). It returns nil
// and what blocks it if d or a parent is a link or not a directory, nil
// and nothing if d does not exist, or nil and an error.
func (w *walker) dir(d string) (dirH, *blocker, error) {
	if d == "." {
		return w.base, nil, nil
	}
	if !w.mkdir && w.missAt != "" && (d == w.missAt || strings.HasPrefix(d, w.missAt+"/")) {
		return nil, w.missB, w.missErr
	}
	comps := strings.Split(d, "/")
	if slices.ContainsFunc(comps, func(c string) bool { return c == "" || c == "." || c == ".." }) {
		// Never met: paths are checked before. But ".." would leave.
		return nil, nil, &fs.PathError{Op: "open", Path: d, Err: fs.ErrInvalid}
	}
	k := 0
	for k < len(w.names) && k < len(comps) && w.names[k] == comps[k] {
		k++
	}
	w.popTo(k)
	for i := k; i < len(comps); i++ {
		parent := w.base
		if i > 0 {
			parent = w.dirs[i-1]
		}
		at := strings.Join(comps[:i+1], "/")
		h, err := parent.openDir(comps[i])
		if err != nil && w.mkdir && errors.Is(err, fs.ErrNotExist) {
			// Another goroutine may make it first: then open theirs.
			if err := parent.mkdir(comps[i]); err != nil && !errors.Is(err, fs.ErrExist) {
				return nil, nil, &fs.PathError{Op: "mkdir", Path: at, Err: underlying(err)}
			}
			h, err = parent.openDir(comps[i])
		}
		if err != nil {
			b, err := classify(parent, comps[i], at, err)
			if !w.mkdir {
				w.missAt, w.missB, w.missErr = at, b, err
			} else if b == nil && err == nil {
				err = &fs.PathError{Op: "mkdir", Path: at, Err: fs.ErrNotExist}
			}
			return nil, b, err
		}
		w.names = append(w.names, comps[i])
		w.dirs = append(w.dirs, h)
	}
	w.missAt = ""
	return w.dirs[len(w.dirs)-1], nil, nil
}

// mustDir is dir for a directory that must be there, as in a stage.
func (w *walker) mustDir(d string) (dirH, error) {
	h, b, err := w.dir(d)
	switch {
	case err != nil:
		return nil, err
	case b != nil:
		return nil, fmt.Errorf("%s is %s", b.at, b.what)
	case h == nil:
		return nil, &fs.PathError{Op: "open", Path: d, Err: fs.ErrNotExist}
	}
	return h, nil
}

// popTo closes the open directories below the first k components.
func (w *walker) popTo(k int) {
	for i := len(w.dirs) - 1; i >= k; i-- {
		w.dirs[i].close()
	}
	w.names, w.dirs = w.names[:k], w.dirs[:k]
}

func (w *walker) close() { w.popTo(0) }

// classify says why openDir failed on name in parent (at is its slash
// path): nothing if it does not exist, a blocker if it is a link or not a
// directory, or else the error.
func classify(parent dirH, name, at string, openErr error) (*blocker, error) {
	if errors.Is(openErr, fs.ErrNotExist) {
		return nil, nil
	}
	fi, err := parent.lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, &fs.PathError{Op: "lstat", Path: at, Err: underlying(err)}
	case fi.Mode()&fs.ModeSymlink != 0:
		return &blocker{at: at, what: linkWhat}, nil
	case !fi.IsDir():
		return &blocker{at: at, what: "not a directory"}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: at, Err: underlying(openErr)}
}

// lookFile is look for the file name in the directory h: the regular
// file, nil if there is none, or what blocks the slash path p.
func lookFile(h dirH, name, p string) (fs.FileInfo, *blocker, error) {
	fi, err := h.lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil
	case err != nil:
		return nil, nil, &fs.PathError{Op: "lstat", Path: p, Err: underlying(err)}
	case fi.Mode().IsRegular():
		return fi, nil, nil
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, &blocker{path: p, at: p, what: linkWhat}, nil
	case fi.IsDir():
		return nil, &blocker{path: p, at: p, what: "a directory"}, nil
	}
	return nil, &blocker{path: p, at: p, what: "not a regular file"}, nil
}

// probeDir creates and deletes a file in h, the surest test that gpufleet
// may create, rename and delete entries there; d is h's slash path.
func probeDir(h dirH, d string) error {
	name := ".gpufleet-probe-" + rand.Text()
	if err := h.create(name, nil, 0o600); err != nil {
		return &fs.PathError{Op: "open", Path: path.Join(d, name), Err: underlying(err)}
	}
	if err := h.remove(name); err != nil {
		return &fs.PathError{Op: "remove", Path: path.Join(d, name), Err: underlying(err)}
	}
	return nil
}

// underlying is err without the operation and path a PathError adds, so
// that the caller can name the path in the tree instead.
func underlying(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// splitDir returns slash path p's directory ("." at the top) and name.
func splitDir(p string) (dir, name string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ".", p
	}
	return p[:i], p[i+1:]
}
