package encode

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"path"
	"slices"

	"github.com/gpufleet/gpufleet/compiler/internal/par"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// Batch lists files in a tree and encodes them together on every CPU: YAML
// encoding is most of what rendering a big fleet costs, and the files are
// independent. The error reported is the first in listing order, whatever
// the scheduling.
type Batch struct {
	tree   tree.Typed
	err    error
	queued []queued
}

type queued struct {
	path string
	objs []any
	// json is set for a JSON file, whose one value is objs[0].
	json bool
}

// NewBatch returns a batch that writes into t, keeping each YAML file's
// objects in t.Objects for the stages that read the tree (tree.Objects).
func NewBatch(t tree.Typed) *Batch {
	if t.Objects == nil {
		t.Objects = tree.Objects{}
	}
	return &Batch{tree: t}
}

// Tree is the tree the batch writes into. A listed file is present, with no
// bytes, until Flush.
func (b *Batch) Tree() tree.Typed { return b.tree }

// YAML lists a file of objs, one document each. The objects must not
// change afterwards: the tree keeps them (tree.Objects).
func (b *Batch) YAML(p string, objs ...any) {
	if b.err != nil {
		return
	}
	p = path.Clean(p)
	b.tree.Tree[p] = nil
	b.tree.Objects[p] = objs
	b.queued = append(b.queued, queued{path: p, objs: objs})
}

// JSON lists a file of v as indented JSON with every object's keys sorted
// (a round trip through maps), so the bytes depend on the spec alone. It
// is encoded in Flush with the rest: Terraform's file of every node group
// is one of a big fleet's largest. v must not change afterwards.
func (b *Batch) JSON(p string, v any) {
	if b.err != nil {
		return
	}
	p = path.Clean(p)
	b.tree.Tree[p] = nil
	delete(b.tree.Objects, p)
	b.queued = append(b.queued, queued{path: p, objs: []any{v}, json: true})
}

func marshalJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err = enc.Encode(m)
	return buf.Bytes(), err
}

// weight ranks a file's encoding cost: its objects, and a JSON file above
// any YAML one.
func weight(f queued) int {
	if f.json {
		return math.MaxInt
	}
	return len(f.objs)
}

// Fail records err, unless an earlier error was; nothing is listed after it.
func (b *Batch) Fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// Flush encodes the listed files and returns the first error.
func (b *Batch) Flush() error {
	q := b.queued
	b.queued = nil
	out := make([][]byte, len(q))
	errs := make([]error, len(q))
	// Largest first, so that no big file (Terraform's JSON of every node
	// group, eksctl's) starts last and keeps one CPU busy alone; a JSON
	// file is one value but among the biggest.
	order := make([]int, len(q))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(weight(q[b]), weight(q[a]))
	})
	par.EachWith(len(q), newEncoder, func(k int, e *encoder) {
		i := order[k]
		if q[i].json {
			out[i], errs[i] = marshalJSON(q[i].objs[0])
		} else {
			out[i], errs[i] = e.marshal(q[i].objs)
		}
	})
	for i, f := range q {
		if errs[i] != nil {
			b.Fail(errs[i])
			delete(b.tree.Tree, f.path)
			delete(b.tree.Objects, f.path)
			continue
		}
		b.tree.Tree[f.path] = out[i]
	}
	return b.err
}
