// Package load reads fleet specs (CUE files, CUE package directories, YAML or
// JSON data), unifies them with the embedded schema and decodes the result.
package load

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/load"
	"cuelang.org/go/cue/parser"

	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/internal/par"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/schema"
)

// schemaDir prefixes the embedded schema's file names in positions, so they
// are never mistaken for the user's files.
const schemaDir = "$gpufleet/schema/"

// Source is a loaded spec: the decoded fleet and what is needed to point back
// into the files it came from.
type Source struct {
	Fleet *spec.Fleet
	// shards are the spec's evaluations (see shard.go): one, or one per
	// CPU for a big data spec.
	shards []shard
	// inputs are kept until Decode, which may evaluate them again whole.
	inputs []input
	// files are the spec paths as given, for errors with no position.
	files []string
	wd    string
}

// Load reads every path in paths, unifies them into one fleet and validates
// it against the schema. All errors are returned together as a diag.List.
func Load(paths []string) (*Source, error) { return LoadWith(paths, nil) }

// LoadWith is Load, calling evaluated, if set, once the spec is evaluated
// and before it is decoded: what CUE left behind is garbage from then on,
// and decoding a big spec makes as much again (the CLI collects there,
// internal/cli/gc.go).
func LoadWith(paths []string, evaluated func()) (*Source, error) {
	type result struct {
		src *Source
		err error
	}
	done := make(chan result, 1)
	go func() {
		src, err := Evaluate(paths)
		if err == nil {
			if evaluated != nil {
				evaluated()
			}
			err = src.Decode()
		}
		done <- result{src, err}
	}()
	timer := time.NewTimer(EvalTimeout)
	defer timer.Stop()
	stop := make(chan struct{})
	defer close(stop)
	bound, why := memoryBound()
	over := watchMemory(stop, bound)
	select {
	case r := <-done:
		if r.err != nil {
			return nil, r.err
		}
		return r.src, nil
	case <-timer.C:
		// CUE cannot be cancelled: the evaluation goes on until the
		// process exits, which the CLI does at once.
		return nil, diag.List{{Pos: diag.Pos{File: strings.Join(paths, ", ")},
			Msg: fmt.Sprintf("evaluating the spec took more than %v, so gpufleet stopped: no fleet needs that long (the largest benchmark fleet takes 3 s), a spec that does is hostile or pathological, for example one with hundreds of thousands of errors, which CUE gathers in quadratic time", EvalTimeout)}}
	case h := <-over:
		// As above: the CLI exits at once, before the runner runs out.
		return nil, diag.List{{Pos: diag.Pos{File: strings.Join(paths, ", ")},
			Msg: fmt.Sprintf("evaluating the spec took more than %d MiB of memory%s (%d MiB when stopped), so gpufleet stopped: no fleet needs that much (the largest benchmark fleet takes 1.1 GB), a spec that does is hostile or pathological, for example a CUE list.Range over millions or a large value referenced by many errors", bound>>20, because(why), h>>20)}}
	}
}

// because is why's parenthesis, if any.
func because(why string) string {
	if why == "" {
		return ""
	}
	return ", " + why
}

// EvalTimeout bounds Load, so that no spec can stall CI: CUE's cost grows
// faster than linearly with some inputs even within MaxSpecBytes.
var EvalTimeout = 60 * time.Second

// Evaluate is Load's first half: it evaluates the specs with the schema
// and validates the result, leaving Fleet nil.
func Evaluate(paths []string) (*Source, error) {
	return evaluate(paths, 0)
}

// evaluate is Evaluate in k shards, or as many as shardCount gives for 0.
func evaluate(paths []string, k int) (*Source, error) {
	if len(paths) == 0 {
		return nil, diag.List{{Msg: "no spec given"}}
	}
	wd, _ := os.Getwd()
	src := &Source{wd: wd, files: paths}
	inputs, errs := src.read(paths)
	switch {
	case len(errs) > 0:
		k = 1 // only to report the other inputs' errors with these
	case k == 0:
		k = shardCount(inputs)
	}
	if k > 1 {
		for i := range inputs {
			if inputs[i].ext == ".json" {
				inputs[i].split = splitJSON(inputs[i].data, k)
			}
		}
	}
	src.shards = make([]shard, k)
	par.Each(k, func(i int) { src.shards[i] = src.evalShard(inputs, i, k) })
	if k > 1 && slices.ContainsFunc(src.shards, shard.failed) {
		// CUE keeps only an evaluation's most severe kind of error (a
		// missing field is dropped when a value is out of range), and
		// shards each keep their own: a failed spec is evaluated again
		// whole, so that its errors are exactly CUE's.
		src.shards = []shard{src.evalShard(inputs, 0, 1)}
	}
	for _, e := range src.shards[0].loadErrs {
		var cerr cueerrors.Error
		if errors.As(e.err, &cerr) {
			errs = append(errs, src.cueDiags(e.err)...)
		} else {
			errs = append(errs, plainDiag(e.path, e.err))
		}
	}
	if len(errs) > 0 {
		return nil, errs.Err()
	}
	if err := src.shards[0].valErr; err != nil {
		return nil, src.cueDiags(err).Err()
	}
	src.inputs = inputs
	return src, nil
}

func schemaValue(ctx *cue.Context) (cue.Value, error) {
	inst := build.NewContext().NewInstance("", nil)
	for _, f := range schema.Files() {
		file, err := parser.ParseFile(schemaDir+f.Name, f.Data, parser.ParseComments)
		if err != nil {
			return cue.Value{}, fmt.Errorf("embedded schema: %w", err)
		}
		if err := inst.AddSyntax(file); err != nil {
			return cue.Value{}, fmt.Errorf("embedded schema: %w", err)
		}
	}
	v := ctx.BuildInstance(inst)
	if v.Err() != nil {
		return cue.Value{}, fmt.Errorf("embedded schema: %w", v.Err())
	}
	return v.LookupPath(cue.ParsePath("#Fleet")), nil
}

// loadCUE loads one CUE package. The schema is overlaid as the package
// gpufleet.dev/schema so that specs may import it; the registry is disabled
// so that evaluating a spec never reaches the network.
func (s *Source) loadCUE(ctx *cue.Context, dir, arg string) (cue.Value, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return cue.Value{}, err
	}
	overlay := map[string]load.Source{}
	modFile := filepath.Join(abs, "cue.mod", "module.cue")
	if _, err := os.Stat(modFile); err != nil {
		overlay[modFile] = load.FromString("module: \"gpufleet.local/spec@v0\"\nlanguage: version: \"v0.17.0\"\n")
	}
	for _, f := range schema.Files() {
		overlay[filepath.Join(abs, "cue.mod", "pkg", schema.ImportPath, f.Name)] = load.FromBytes(f.Data)
	}
	cfg := &load.Config{
		Dir:       abs,
		Overlay:   overlay,
		Env:       []string{"CUE_REGISTRY=none"},
		ParseFile: parseNoExtern,
	}
	insts := load.Instances([]string{arg}, cfg)
	if len(insts) != 1 {
		return cue.Value{}, fmt.Errorf("want one CUE package, found %d", len(insts))
	}
	if insts[0].Err != nil {
		return cue.Value{}, insts[0].Err
	}
	// Check what the loader actually read, before anything is evaluated.
	if err := confined(abs, insts[0], overlay, map[*build.Instance]bool{}); err != nil {
		return cue.Value{}, err
	}
	v := ctx.BuildInstance(insts[0])
	return v, v.Err()
}

// plainDiag positions an error that is not a CUE error at its file. Some
// decoders (CUE's YAML one) put "file:line:" in the text instead: that
// becomes the position, so the file is not named twice.
func plainDiag(file string, err error) diag.Diagnostic {
	d := diag.Diagnostic{Pos: diag.Pos{File: file}, Msg: plainMsg(err)}
	rest, ok := strings.CutPrefix(d.Msg, file+":")
	if !ok {
		return d
	}
	rest = strings.TrimPrefix(rest, " ")
	if m := linePrefix.FindStringSubmatch(rest); m != nil {
		d.Pos.Line, _ = strconv.Atoi(m[1])
		d.Pos.Column = 1 // the decoder gave the line only
		if m[2] != "" {
			d.Pos.Column, _ = strconv.Atoi(m[2])
		}
		rest = rest[len(m[0]):]
	}
	if rest != "" {
		d.Msg = rest
	}
	return d
}

var linePrefix = regexp.MustCompile(`^(\d+):(?:(\d+):)? `)

// plainMsg drops the path an *fs.PathError repeats, since the diagnostic
// already names the file.
func plainMsg(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
