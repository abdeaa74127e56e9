// Package encode writes the objects render builds as the bytes of the tree:
// YAML byte-identical to sigs.k8s.io/yaml (small emitters for the shapes
// gpufleet writes, the first straight from each object's JSON, go-yaml for
// the rest) and sorted, indented JSON, each file encoded on every CPU.
package encode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	goyaml "go.yaml.in/yaml/v2"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// emptyDropped are fields that typed objects serialise as {} or null when
// unset and that mean nothing to the API server; they are dropped so the
// tree reads like hand-written YAML.
var emptyDropped = map[string]bool{
	"status":            true,
	"creationTimestamp": true,
	"resources":         true,
	"strategy":          true,
	"updateStrategy":    true,
	"spec":              true,
	"metadata":          true,
}

// Marshal encodes objects as one YAML stream with the header. Keys are
// sorted, so the output is deterministic.
func Marshal(objs ...any) ([]byte, error) {
	e := encoders.Get().(*encoder)
	defer encoders.Put(e)
	return e.marshal(objs)
}

// encoders are scratch space for Marshal; Batch.Flush keeps one per
// goroutine instead.
var encoders = sync.Pool{New: func() any { return newEncoder() }}

// encoder is one goroutine's scratch space for encoding files, reused from
// file to file: the JSON of an object, its nodes, the bytes written.
type encoder struct {
	json bytes.Buffer
	// enc writes into json what writeJSON delegates.
	enc *json.Encoder
	// keys is a stack of the keys of the generic maps writeJSON writes.
	keys []string
	tree treeEmitter
}

func newEncoder() *encoder {
	e := &encoder{tree: treeEmitter{styles: map[string]style{}}}
	e.enc = json.NewEncoder(&e.json)
	return e
}

// marshal is Marshal: each document is written from its JSON by the tree
// emitter, or else as it always was, by emitYAML or go-yaml from the
// generic value.
func (e *encoder) marshal(objs []any) ([]byte, error) {
	t := &e.tree
	t.b = append(t.b[:0], tree.Header...)
	for i, obj := range objs {
		if i > 0 {
			t.b = append(t.b, "---\n"...)
		}
		e.json.Reset()
		if err := e.writeJSON(obj, 0); err != nil {
			return nil, fmt.Errorf("encoding %T: %w", obj, err)
		}
		if t.document(e.json.Bytes()) {
			continue
		}
		b, err := documentFromJSON(e.json.Bytes())
		if err != nil {
			return nil, err
		}
		t.b = append(t.b, b...)
	}
	return bytes.Clone(t.b), nil
}

// documentFromJSON is the old path: the generic value, written by emitYAML
// if it can and by go-yaml if not.
func documentFromJSON(j []byte) ([]byte, error) {
	v, err := valueOfJSON(j)
	if err != nil {
		return nil, err
	}
	if b, ok := emitYAML(v); ok {
		return b, nil
	}
	return goyaml.Marshal(v)
}

// yamlValue is obj as the generic value go-yaml encodes: its JSON form,
// without status and empty fields, numbers typed as go-yaml reads them.
func yamlValue(obj any) (any, error) {
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding %T: %w", obj, err)
	}
	return valueOfJSON(j)
}

// valueOfJSON is yamlValue of the object j encodes.
func valueOfJSON(j []byte) (any, error) {
	m, err := parseJSON(j)
	if err != nil {
		return nil, err
	}
	// Status belongs to the cluster; a StatefulSet's zero counters would
	// otherwise be written.
	if top, ok := m.(map[string]any); ok {
		delete(top, "status")
	}
	return prune(m), nil
}

// yamlNumbers gives each JSON number the Go type go-yaml gives it when it
// parses the number's text: an int if it parses as one, then a uint64, then
// a float64. go-yaml then writes exactly what sigs.k8s.io/yaml.Marshal
// writes, which encodes to JSON and parses that again with go-yaml: the
// parse was most of a big fleet's render time.
func yamlNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = yamlNumbers(x)
		}
	case []any:
		for i, x := range t {
			t[i] = yamlNumbers(x)
		}
	case json.Number:
		s := string(t)
		if i, err := strconv.ParseInt(s, 0, 64); err == nil {
			if i == int64(int(i)) {
				return int(i)
			}
			return i
		}
		if u, err := strconv.ParseUint(s, 0, 64); err == nil {
			return u
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
		return s
	}
	return v
}

func prune(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			x = prune(x)
			if emptyDropped[k] && isEmpty(x) {
				delete(t, k)
				continue
			}
			t[k] = x
		}
	case []any:
		for i, x := range t {
			t[i] = prune(x)
		}
	}
	return v
}

func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(t) == 0
	}
	return false
}
