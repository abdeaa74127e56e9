package load

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	cueerrors "cuelang.org/go/cue/errors"
	cuejson "cuelang.org/go/encoding/json"
	cueyaml "cuelang.org/go/encoding/yaml"

	"github.com/gpufleet/gpufleet/compiler/diag"
)

// input is one spec path, checked: a data file's bytes, or the CUE file
// or package directory CUE's loader is to read.
type input struct {
	path     string
	ext      string // of a data file, in lower case
	data     []byte
	split    [][]byte // a JSON spec's text for each shard (splitJSON)
	cue      bool     // CUE, read by CUE's loader from dir and arg
	dir, arg string
}

// read checks and reads every path; nothing is evaluated yet.
func (s *Source) read(paths []string) ([]input, diag.List) {
	var inputs []input
	var errs diag.List
	for _, p := range paths {
		in, err := readInput(p)
		var cerr cueerrors.Error
		switch {
		case err == nil:
			inputs = append(inputs, in)
		case errors.As(err, &cerr):
			errs = append(errs, s.cueDiags(err)...)
		default:
			errs = append(errs, plainDiag(p, err))
		}
	}
	return inputs, errs
}

func readInput(path string) (input, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return input{}, err
	}
	if err := checkSize(path, fi); err != nil {
		return input{}, err
	}
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case fi.IsDir():
		return input{path: path, cue: true, dir: path, arg: "."}, nil
	case ext == ".cue":
		if err := colonName(path); err != nil {
			return input{}, err
		}
		return input{path: path, cue: true, dir: filepath.Dir(path), arg: filepath.Base(path)}, nil
	case ext == ".yaml", ext == ".yml", ext == ".json":
		if err := confinedFile(path); err != nil {
			return input{}, err
		}
		data, err := readData(path)
		if err != nil {
			return input{}, err
		}
		if err := longDigits(path, data); err != nil {
			return input{}, err
		}
		if ext == ".json" {
			data = jsonBOM(data)
		} else {
			if err := loneCR(path, data); err != nil {
				return input{}, err
			}
			if err := oneDocument(path, data); err != nil {
				return input{}, err
			}
		}
		return input{path: path, ext: ext, data: data}, nil
	default:
		return input{}, fmt.Errorf("unsupported spec file: want .cue, .yaml, .yml, .json or a directory")
	}
}

func readData(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The size was checked, but the file may have grown since.
	data, err := io.ReadAll(io.LimitReader(f, MaxSpecBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSpecBytes {
		return nil, tooLarge(int64(len(data)))
	}
	return data, nil
}

// dataValue parses a YAML or JSON input and builds the part of it shard i
// of k owns; ok is false if it cannot be split.
func dataValue(ctx *cue.Context, in input, i, k int) (v cue.Value, ok bool, err error) {
	var file *ast.File
	if in.ext == ".json" {
		data := in.data
		if k > 1 && in.split != nil {
			data = in.split[i]
		}
		expr, err := cuejson.Extract(in.path, data)
		if err != nil {
			return cue.Value{}, true, err
		}
		file, err = astutilFile(expr)
		if err != nil {
			return cue.Value{}, true, err
		}
	} else {
		file, err = cueyaml.Extract(in.path, in.data)
		if err != nil {
			return cue.Value{}, true, err
		}
	}
	if k > 1 && !keepOwn(file.Decls, i, k) {
		return cue.Value{}, false, nil
	}
	if err := exactNumbers(file); err != nil {
		return cue.Value{}, true, err
	}
	v = ctx.BuildFile(file, cue.Filename(in.path))
	return v, true, v.Err()
}

func astutilFile(expr ast.Expr) (*ast.File, error) {
	st, ok := expr.(*ast.StructLit)
	if !ok {
		return nil, fmt.Errorf("a JSON spec must be an object")
	}
	return &ast.File{Decls: st.Elts}, nil
}
