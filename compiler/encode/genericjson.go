package encode

import (
	"slices"
	"strings"
)

// writeJSON appends to e.json the bytes json.Marshal returns for v. It
// writes generic maps, slices and plain strings itself and hands anything
// else to encoding/json: its
// reflection over a map[string]any, copying every key and value, was most
// of the cost of encoding the policy patches (render's generic pod
// templates). TestFastMatchesOld, TestWriteJSON and FuzzWriteJSON hold it to
// json.Marshal.
func (e *encoder) writeJSON(v any, depth int) error {
	if depth > maxGenericDepth {
		return e.delegate(v)
	}
	switch t := v.(type) {
	case nil:
		e.json.WriteString("null")
	case bool:
		if t {
			e.json.WriteString("true")
		} else {
			e.json.WriteString("false")
		}
	case string:
		if !plainJSON(t) {
			return e.delegate(t)
		}
		e.json.WriteByte('"')
		e.json.WriteString(t)
		e.json.WriteByte('"')
	case map[string]any:
		if t == nil {
			e.json.WriteString("null")
			return nil
		}
		// encoding/json sorts a map's keys as strings.
		base := len(e.keys)
		for k := range t {
			e.keys = append(e.keys, k)
		}
		slices.SortFunc(e.keys[base:], strings.Compare)
		e.json.WriteByte('{')
		for i := base; i < len(e.keys); i++ {
			if i > base {
				e.json.WriteByte(',')
			}
			if err := e.writeJSON(e.keys[i], depth+1); err != nil {
				return err
			}
			e.json.WriteByte(':')
			if err := e.writeJSON(t[e.keys[i]], depth+1); err != nil {
				return err
			}
		}
		e.json.WriteByte('}')
		clear(e.keys[base:])
		e.keys = e.keys[:base]
	case []any:
		if t == nil {
			e.json.WriteString("null")
			return nil
		}
		e.json.WriteByte('[')
		for i, x := range t {
			if i > 0 {
				e.json.WriteByte(',')
			}
			if err := e.writeJSON(x, depth+1); err != nil {
				return err
			}
		}
		e.json.WriteByte(']')
	default:
		return e.delegate(v)
	}
	return nil
}

// maxGenericDepth hands deeper values to encoding/json, which detects a
// cycle where writeJSON would recurse without end.
const maxGenericDepth = 100

// delegate appends encoding/json's encoding of v.
func (e *encoder) delegate(v any) error {
	if err := e.enc.Encode(v); err != nil {
		return err
	}
	e.json.Truncate(e.json.Len() - 1) // Encode's newline
	return nil
}

// plainJSON reports whether encoding/json writes s as it is, between
// quotes: printable ASCII that is not escaped, HTML's characters included.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}
