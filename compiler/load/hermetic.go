package load

// Hermetic evaluation: a spec reads nothing but its own files, because CI
// evaluates strangers' pull requests.

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/load"
	"cuelang.org/go/cue/parser"

	"github.com/gpufleet/gpufleet/compiler/diag"
)

// parseNoExtern parses a spec file that is text (see text) and rejects
// @extern attributes: file
// embedding (@extern(embed) with @embed) would let a spec read files other
// than its own CUE, and a spec is evaluated hermetically.
func parseNoExtern(name string, src any, cfg parser.Config) (*ast.File, error) {
	switch data := src.(type) {
	case []byte:
		if err := text(name, data); err != nil {
			return nil, err
		}
	case string:
		if err := text(name, []byte(data)); err != nil {
			return nil, err
		}
	}
	f, err := parser.ParseFile(name, src, cfg)
	if err != nil {
		return f, err
	}
	if err := exactNumbers(f); err != nil {
		return nil, err
	}
	for _, d := range f.Decls {
		if a, ok := d.(*ast.Attribute); ok {
			if k, _ := a.Split(); k == "extern" {
				return nil, cueerrors.Newf(a.Pos(), "%s: a spec may not embed files; it is evaluated from its own .cue files only", a.Text)
			}
		}
	}
	return f, nil
}

// confined rejects an instance that read a file, through a symbolic link,
// from outside the spec directory: a spec reads nothing but its own files.
// Only the files the loader read count, not whatever else the directory
// holds.
func confined(dir string, inst *build.Instance, overlay map[string]load.Source, seen map[*build.Instance]bool) error {
	if seen[inst] {
		return nil
	}
	seen[inst] = true
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	for _, f := range inst.BuildFiles {
		if _, ok := overlay[f.Filename]; ok {
			continue // the embedded schema, not on disk
		}
		target, err := filepath.EvalSymlinks(f.Filename)
		if err != nil {
			return fmt.Errorf("%s: %w", diag.RelFile(dir, f.Filename), err)
		}
		if rel, err := filepath.Rel(root, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("%s: symbolic link leads outside the spec directory", diag.RelFile(dir, f.Filename))
		}
	}
	for _, imp := range inst.Imports {
		if err := confined(dir, imp, overlay, seen); err != nil {
			return err
		}
	}
	return nil
}

func isLink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

// confinedFile rejects a YAML or JSON spec that is a symbolic link leading
// out of its own directory, as confined does for CUE: a pull request could
// otherwise commit fleet.yaml pointing at any file CI can read, and the
// decoder's errors would quote it.
func confinedFile(path string) error {
	if !isLink(path) {
		return nil
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return err
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(dir, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("symbolic link leads outside the spec directory")
	}
	return nil
}
