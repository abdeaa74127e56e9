package load

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MaxSpecBytes bounds a spec file, and the .cue files of a spec directory
// together: CUE's evaluation cost grows faster than linearly with input
// size, so a hostile spec must not be able to stall CI for hours. The
// largest generated benchmark fleet (XL) is under 5 MB.
const MaxSpecBytes = 16 << 20

func tooLarge(n int64) error {
	return fmt.Errorf("spec file too large (%d bytes; the limit is %d MiB)", n, MaxSpecBytes>>20)
}

// checkSize rejects what cannot be a spec before CUE reads it: a file over
// MaxSpecBytes, a directory whose .cue files are, a device or named pipe
// (reading one may never end), and a .cue file that is not UTF-8 text
// (CUE's loader would replace invalid bytes before the parse hook sees
// them).
func checkSize(path string, fi fs.FileInfo) error {
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("not a regular file")
		}
		if fi.Size() > MaxSpecBytes {
			return tooLarge(fi.Size())
		}
		if strings.EqualFold(filepath.Ext(path), ".cue") && !isLink(path) {
			return textFile(path) // a link's target is checked by confined
		}
		return nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	var total int64
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".cue") {
			continue
		}
		info, err := os.Stat(filepath.Join(path, e.Name()))
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file", e.Name())
		}
		total += info.Size()
	}
	if total > MaxSpecBytes {
		return tooLarge(total)
	}
	if !slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return !e.IsDir() && strings.HasSuffix(e.Name(), ".cue") }) {
		return fmt.Errorf("no .cue files here: a spec directory holds one CUE package (YAML and JSON specs are named one by one)")
	}
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".cue") {
			if err := textFile(filepath.Join(path, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
