package write

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
)

// sameContent reports whether the regular file look found at name in h
// (p in the tree) holds exactly want. Sizes are compared first; then the
// file is read a piece at a time into buf and compared as it comes, so a
// big fleet's report (a gigabyte) is never held twice, and a file of any
// size can be found unchanged. The file opened must be the one look found.
func sameContent(h dirH, name, p string, fi fs.FileInfo, want, buf []byte) (bool, error) {
	if fi.Size() != int64(len(want)) {
		return false, nil
	}
	f, err := h.open(name)
	if err != nil {
		return false, &fs.PathError{Op: "open", Path: p, Err: underlying(err)}
	}
	defer f.Close()
	if ofi, err := f.Stat(); err != nil || !sameFile(fi, ofi) {
		return false, fmt.Errorf("%s changed while gpufleet read it", p)
	}
	for off := 0; ; {
		// One byte more than is left: a regular file reads short only
		// at its end, so a short read needs no other to see EOF.
		ask := min(len(buf), len(want)-off+1)
		n, err := f.Read(buf[:ask])
		if off+n > len(want) || !bytes.Equal(buf[:n], want[off:off+n]) {
			return false, nil
		}
		off += n
		if err == io.EOF || (err == nil && n < ask) {
			return off == len(want), nil
		}
		if err != nil {
			return false, err
		}
	}
}

// compareBuf is the piece sameContent reads at a time.
func compareBuf() []byte { return make([]byte, 1<<20) }
