package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"runtime"
	"slices"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"

	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/internal/par"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// A data spec (YAML or JSON) is evaluated in shards, one CUE context each,
// on every CPU: CUE's evaluator is single-threaded, and evaluating the spec
// is most of what building a big fleet costs. Shard i of k keeps every
// field of the spec but only the entries of pools, classes and tenants
// whose name hashes to i. This gives what evaluating the whole spec gives
// because the schema relates no two entries, nor an entry to anything
// outside it (TestSchemaEntriesIndependent holds the schema to that), and
// entries with one name, even from different files, meet in one shard.
// A CUE spec is a program, free to relate anything, so it is one shard.
// A spec with errors is evaluated again whole, for CUE's own choice of
// which errors to report (TestShardsAgree holds shards to the whole).

// shard is one evaluation of the spec, in a CUE context of its own.
type shard struct {
	// value is the spec unified with #Fleet.
	value cue.Value
	// parts are the spec's own values before unification; positions are
	// looked up in them so that they name the user's file, not the schema.
	parts []cue.Value
	// loadErrs are the inputs that failed to load, in order; valErr is
	// the evaluation's.
	loadErrs []inputErr
	valErr   error
	// whole is set when the shard met a shape it cannot split.
	whole bool
}

// failed reports whether the shard could not be split or has errors.
func (sh shard) failed() bool { return sh.whole || len(sh.loadErrs) > 0 || sh.valErr != nil }

type inputErr struct {
	path string
	err  error
}

// evalShard loads every input in a context of its own, keeping of a data
// spec's entries those shard i of k owns, and validates their union.
func (s *Source) evalShard(inputs []input, i, k int) shard {
	var sh shard
	ctx := cuecontext.New()
	fleetDef, err := schemaValue(ctx)
	if err != nil { // a bug in the embedded schema, reported as it is
		sh.loadErrs = []inputErr{{"", err}}
		return sh
	}
	for _, in := range inputs {
		var v cue.Value
		var err error
		if !in.cue {
			var ok bool
			v, ok, err = dataValue(ctx, in, i, k)
			if !ok {
				sh.whole = true
				return sh
			}
		} else {
			v, err = s.loadCUE(ctx, in.dir, in.arg)
		}
		if err != nil {
			sh.loadErrs = append(sh.loadErrs, inputErr{in.path, err})
			continue
		}
		sh.parts = append(sh.parts, v)
	}
	if len(sh.loadErrs) > 0 || len(sh.parts) < len(s.files) {
		return sh // what failed to read or load is reported instead
	}
	v := fleetDef
	for _, part := range sh.parts {
		v = v.Unify(part)
	}
	sh.valErr = v.Validate(cue.Concrete(true), cue.Final())
	sh.value = v
	return sh
}

// Decode is Load's second half: it decodes the evaluated value into Fleet,
// each shard on a CPU of its own.
func (s *Source) Decode() error {
	fleets := make([]spec.Fleet, len(s.shards))
	errs := make([]error, len(s.shards))
	par.Each(len(s.shards), func(i int) { errs[i] = s.shards[i].decode(&fleets[i]) })
	if len(s.shards) > 1 && slices.ContainsFunc(errs, func(err error) bool { return err != nil }) {
		// As in evaluate: a failure's errors are the whole spec's.
		s.shards = []shard{s.evalShard(s.inputs, 0, 1)}
		return s.Decode()
	}
	s.inputs = nil
	if err := errs[0]; err != nil {
		var cerr cueerrors.Error
		if errors.As(err, &cerr) {
			return s.cueDiags(err).Err()
		}
		// The schema is closed and typed, so this means schema and Go
		// types disagree: a bug, but still reported rather than panicking.
		return diag.List{{Msg: fmt.Sprintf("decoding spec: %v", err)}}
	}
	f := merge(fleets)
	s.Fleet = &f
	return nil
}

func (sh shard) decode(f *spec.Fleet) error {
	data, err := sh.value.MarshalJSON()
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(f)
}

// shardedSections are the spec's fields whose entries are split.
var shardedSections = map[string]bool{"pools": true, "classes": true, "tenants": true}

// shardMinBytes is the data below which one shard is faster: each shard
// parses the whole input and compiles the schema again.
const shardMinBytes = 64 << 10

// maxShards bounds the contexts: beyond the CPUs there is no gain, and a
// shard costs memory for its copy of everything that is not split.
const maxShards = 4

// shardCount is how many shards a spec of inputs is evaluated in.
func shardCount(inputs []input) int {
	size := 0
	for _, in := range inputs {
		if in.cue {
			return 1
		}
		size += len(in.data)
	}
	if size < shardMinBytes {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), maxShards)
}

// owner is the shard of k that evaluates the entry named key.
func owner(key string, k int) int {
	if k <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % uint32(k))
}

// ownerOf is the shard of k that holds what path names: an entry's shard
// for a path into one, or shard 0 for anything every shard holds.
func ownerOf(path []string, k int) int {
	if len(path) < 2 || !shardedSections[path[0]] {
		return 0
	}
	return owner(path[1], k)
}

// keepOwn drops, from the top-level declarations of one data file, the
// entries of the split sections that shard i of k does not own. It reports
// false, changing nothing, for a shape it does not know (a section that
// is not a struct, a label that is not a name): such a spec is evaluated
// whole, where CUE reports whatever is wrong with it.
func keepOwn(decls []ast.Decl, i, k int) bool {
	var sections []*ast.StructLit
	for _, d := range decls {
		f, ok := d.(*ast.Field)
		if !ok {
			return false
		}
		name, _, err := ast.LabelName(f.Label)
		if err != nil {
			return false
		}
		if !shardedSections[name] {
			continue
		}
		st, ok := f.Value.(*ast.StructLit)
		if !ok {
			return false
		}
		for _, e := range st.Elts {
			ef, ok := e.(*ast.Field)
			if !ok {
				return false
			}
			if _, _, err := ast.LabelName(ef.Label); err != nil {
				return false
			}
		}
		sections = append(sections, st)
	}
	for _, st := range sections {
		kept := st.Elts[:0:0]
		for _, e := range st.Elts {
			name, _, _ := ast.LabelName(e.(*ast.Field).Label)
			if owner(name, k) == i {
				kept = append(kept, e)
			}
		}
		st.Elts = kept
	}
	return true
}

// merge joins the shards' fleets: the split sections' entries from every
// shard, everything else from shard 0 (every shard has the same).
func merge(fleets []spec.Fleet) spec.Fleet {
	f := fleets[0]
	for _, g := range fleets[1:] {
		f.Pools = union(f.Pools, g.Pools)
		f.Classes = union(f.Classes, g.Classes)
		f.Tenants = union(f.Tenants, g.Tenants)
	}
	return f
}

func union[V any](into, from map[string]V) map[string]V {
	if into == nil {
		return from
	}
	maps.Copy(into, from)
	return into
}

// JSON is the evaluated spec as `cue export` prints it. It must come before
// Decode: a spec evaluated in shards is evaluated again whole for it.
func (s *Source) JSON() ([]byte, error) {
	if len(s.shards) > 1 {
		if s.inputs == nil {
			return nil, errors.New("load: JSON after Decode of a sharded spec")
		}
		s.shards = []shard{s.evalShard(s.inputs, 0, 1)}
	}
	return s.shards[0].value.MarshalJSON()
}
