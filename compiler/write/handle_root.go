package write

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"
)

// rootDir is the portable dirH, for platforms without openat: a directory
// is its path below an os.Root, which every operation resolves again.
// Each is checked with Lstat first, as look does, and the os.Root keeps
// even a link swapped in after the check from leading out of the tree.
type rootDir struct {
	root *os.Root
	at   string // slash path below root
}

func openRootDir(root *os.Root, name string) (dirH, error) {
	fi, err := root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.ENOTDIR}
	}
	return &rootDir{root, path.Clean(filepath.ToSlash(name))}, nil
}

func (d *rootDir) path(name string) string { return path.Join(d.at, name) }

func (d *rootDir) openDir(name string) (dirH, error) {
	fi, err := d.root.Lstat(d.path(name))
	switch {
	case err != nil:
		return nil, err
	case !fi.IsDir(): // a link too
		return nil, &fs.PathError{Op: "open", Path: d.path(name), Err: syscall.ENOTDIR}
	}
	return &rootDir{d.root, d.path(name)}, nil
}

func (d *rootDir) mkdir(name string) error { return d.root.Mkdir(d.path(name), 0o755) }

func (d *rootDir) lstat(name string) (fs.FileInfo, error) { return d.root.Lstat(d.path(name)) }

func (d *rootDir) open(name string) (file, error) { return d.root.Open(d.path(name)) }

func (d *rootDir) create(name string, data []byte, perm fs.FileMode) error {
	f, err := d.root.OpenFile(d.path(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (d *rootDir) remove(name string) error { return d.root.Remove(d.path(name)) }

func (d *rootDir) removeDir(name string) error {
	if fi, err := d.root.Lstat(d.path(name)); err != nil || !fi.IsDir() {
		return syscall.ENOTDIR
	}
	return d.root.Remove(d.path(name)) // fails on one that is not empty
}

func (d *rootDir) rename(name string, to dirH, toName string) error {
	t := to.(*rootDir)
	if t.root != d.root {
		return errors.New("rename between two trees")
	}
	return d.root.Rename(d.path(name), t.path(toName))
}

func (d *rootDir) close() {}
