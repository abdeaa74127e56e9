package encode

import (
	"bytes"

	goyaml "go.yaml.in/yaml/v2"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// For the differential tests of the YAML emitters.
var (
	YAMLValue = yamlValue
	EmitYAML  = emitYAML
	// OldDoc is the old path from an object's JSON.
	OldDoc = documentFromJSON
)

// FastDoc is the tree emitter's document for an object's JSON, and false
// where it declines.
func FastDoc(j []byte) ([]byte, bool) {
	t := newEncoder().tree
	ok := t.document(j)
	return t.b, ok
}

// WriteJSON is writeJSON's bytes for v.
func WriteJSON(v any) ([]byte, error) {
	e := newEncoder()
	err := e.writeJSON(v, 0)
	return e.json.Bytes(), err
}

// MarshalOld is Marshal before the tree emitter: every document by
// emitYAML, or go-yaml where it declines. MarshalGoYAML is every document
// by go-yaml, what both must match.
func MarshalOld(objs ...any) ([]byte, error) { return marshalWith(objs, true) }

func MarshalGoYAML(objs ...any) ([]byte, error) { return marshalWith(objs, false) }

func marshalWith(objs []any, emitter bool) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(tree.Header)
	for i, obj := range objs {
		if i > 0 {
			buf.WriteString("---\n")
		}
		v, err := yamlValue(obj)
		if err != nil {
			return nil, err
		}
		b, ok := emitYAML(v)
		if !ok || !emitter {
			if b, err = goyaml.Marshal(v); err != nil {
				return nil, err
			}
		}
		buf.Write(b)
	}
	return buf.Bytes(), nil
}
