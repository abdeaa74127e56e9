//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package write

import (
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// With openat, a dirH is a file descriptor, and every name is opened with
// O_NOFOLLOW relative to it: no link is followed, not even one swapped in
// after a check, and no path is resolved twice.

func init() { openBase = openFDDir }

type fdDir struct{ fd int }

// openFDDir opens the directory name below root as a descriptor of its own.
func openFDDir(root *os.Root, name string) (dirH, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var fd int
	var derr error
	if err := c.Control(func(old uintptr) { fd, derr = unix.FcntlInt(old, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, &fs.PathError{Op: "dup", Path: name, Err: derr}
	}
	return &fdDir{fd}, nil
}

func (d *fdDir) openat(name string, flags int, perm uint32) (int, error) {
	for {
		fd, err := unix.Openat(d.fd, name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func (d *fdDir) openDir(name string) (dirH, error) {
	// O_DIRECTORY fails on anything else before opening it, so a named
	// pipe never blocks here.
	fd, err := d.openat(name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return &fdDir{fd}, nil
}

func (d *fdDir) mkdir(name string) error { return unix.Mkdirat(d.fd, name, 0o755) }

func (d *fdDir) lstat(name string) (fs.FileInfo, error) {
	fi := &statInfo{name: name}
	for {
		err := unix.Fstatat(d.fd, name, &fi.st, unix.AT_SYMLINK_NOFOLLOW)
		if err == nil {
			return fi, nil
		}
		if err != unix.EINTR {
			return nil, err
		}
	}
}

func (d *fdDir) open(name string) (file, error) {
	fd, err := d.openat(name, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return &fdFile{fd: fd, name: name}, nil
}

func (d *fdDir) create(name string, data []byte, perm fs.FileMode) error {
	fd, err := d.openat(name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, uint32(perm.Perm()))
	if err != nil {
		return err
	}
	for len(data) > 0 && err == nil {
		var n int
		n, err = unix.Write(fd, data)
		if err == unix.EINTR {
			err = nil
		}
		data = data[max(n, 0):]
	}
	// close reports a write that failed late (a full disk, NFS).
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	return err
}

func (d *fdDir) remove(name string) error { return unix.Unlinkat(d.fd, name, 0) }

func (d *fdDir) removeDir(name string) error { return unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR) }

func (d *fdDir) rename(name string, to dirH, toName string) error {
	return unix.Renameat(d.fd, name, to.(*fdDir).fd, toName)
}

func (d *fdDir) close() { unix.Close(d.fd) }

type fdFile struct {
	fd   int
	name string
}

func (f *fdFile) Read(b []byte) (int, error) {
	for {
		n, err := unix.Read(f.fd, b)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *fdFile) Stat() (fs.FileInfo, error) {
	fi := &statInfo{name: f.name}
	if err := unix.Fstat(f.fd, &fi.st); err != nil {
		return nil, err
	}
	return fi, nil
}

func (f *fdFile) Close() error { return unix.Close(f.fd) }

// statInfo is an fs.FileInfo from fstatat or fstat.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }

func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch uint32(s.st.Mode) & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	default:
		m |= fs.ModeIrregular
	}
	return m
}

// sameFile is os.SameFile for a FileInfo from os or from statInfo.
func sameFile(a, b fs.FileInfo) bool {
	da, ia, okA := fileID(a)
	db, ib, okB := fileID(b)
	if okA && okB {
		return da == db && ia == ib
	}
	return os.SameFile(a, b)
}

func fileID(fi fs.FileInfo) (dev, ino uint64, ok bool) {
	switch st := fi.Sys().(type) {
	case *unix.Stat_t:
		return uint64(st.Dev), uint64(st.Ino), true
	case *syscall.Stat_t:
		return uint64(st.Dev), uint64(st.Ino), true
	}
	return 0, 0, false
}
