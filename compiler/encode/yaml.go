// Package encode writes the objects render builds as the bytes of the tree:
// YAML byte-identical to sigs.k8s.io/yaml (a small emitter for the shapes
// gpufleet writes, go-yaml for the rest) and sorted, indented JSON, each
// file encoded on every CPU.
package encode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

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
	var buf bytes.Buffer
	buf.WriteString(tree.Header)
	for i, obj := range objs {
		if i > 0 {
			buf.WriteString("---\n")
		}
		b, err := marshalOne(obj)
		if err != nil {
			return nil, err
		}
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

func marshalOne(obj any) ([]byte, error) {
	v, err := yamlValue(obj)
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
