package quantity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Quantity.UnmarshalJSON hands ParseQuantity a JSON value's raw text: a
// string's bytes between its quotes (escapes and all), or a number, less
// white space. A decoder of untrusted JSON (a live cluster's files, the
// committed tree's YAML as JSON) first asks Suspect, one pass over the
// bytes, and only if that finds such a text that Check refuses, InJSON,
// which follows the Go type to see whether a Quantity would be decoded
// from it (a label "1e500" is not).

// Suspect reports whether data holds a string or a number whose text,
// trimmed as Quantity.UnmarshalJSON trims it, Check refuses.
func Suspect(data []byte) bool {
	for i := 0; i < len(data); {
		switch c := data[i]; {
		case c == '"':
			end := closing(data, i+1)
			if suspectText(data[i+1 : end]) {
				return true
			}
			i = end + 1
		case c == '-' || isDigit(c):
			j := scalarEnd(data, i)
			if Check(data[i:j]) != nil {
				return true
			}
			i = j
		default:
			i++
		}
	}
	return false
}

// suspectText is Check on a string's text, skipping at once the strings
// (names, mostly) whose first byte no refused quantity starts with.
func suspectText(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	if c := s[0]; c < utf8.RuneSelf && !strings.ContainsRune(" \t\n\v\f\r+-.0123456789eE", rune(c)) {
		return false
	}
	return Check(bytes.TrimSpace(s)) != nil
}

// Refusal is a value in JSON text that would be decoded as a quantity and
// that Check refuses.
type Refusal struct {
	Offset int    // where the value begins in the text
	Path   string // as items[1].status.allocatable[cpu]
	Value  string
	Err    error
}

func (r *Refusal) Error() string {
	v := r.Value
	if len(v) > 40 {
		v = v[:37] + "..."
	}
	return fmt.Sprintf("%s: quantity %q: %v", r.Path, v, r.Err)
}

// InJSON is the first value of data that decodes into a resource.Quantity
// of t (at any depth: a field, a map's value, a list's item) and that
// Check refuses, or nil. Struct fields match as encoding/json matches them,
// so it finds at least what a stricter decoder (sigs.k8s.io/json) would
// parse. Text that is not JSON, or nests deeper than encoding/json allows,
// is left to the decoder, which refuses it before decoding any value.
func InJSON(data []byte, t reflect.Type) *Refusal {
	w := &walker{data: data}
	r, _ := w.value(t, 0)
	return r
}

var (
	quantityType = reflect.TypeFor[resource.Quantity]()
	unmarshaler  = reflect.TypeFor[json.Unmarshaler]()
)

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

type walker struct {
	data []byte
	i    int
	path []string
}

// value walks the value at w.i, which decodes into t (nil: into nothing
// that holds a quantity). ok is false when the text is not JSON.
func (w *walker) value(t reflect.Type, depth int) (r *Refusal, ok bool) {
	w.space()
	if w.i >= len(w.data) || depth > maxDepth {
		return nil, false
	}
	t = target(t)
	start := w.i
	switch w.data[w.i] {
	case '{':
		return w.object(t, depth)
	case '[':
		return w.array(t, depth)
	case '"':
		end := closing(w.data, w.i+1)
		if end == len(w.data) {
			return nil, false
		}
		w.i = end + 1
		if t == quantityType {
			return w.refuse(start, w.data[start+1:end]), true
		}
	default:
		w.i = scalarEnd(w.data, w.i)
		if w.i == start {
			return nil, false
		}
		if t == quantityType {
			return w.refuse(start, w.data[start:w.i]), true
		}
	}
	return nil, true
}

func (w *walker) object(t reflect.Type, depth int) (*Refusal, bool) {
	w.i++
	for first := true; ; first = false {
		w.space()
		if w.i < len(w.data) && w.data[w.i] == '}' && first {
			w.i++
			return nil, true
		}
		if w.i >= len(w.data) || w.data[w.i] != '"' {
			return nil, false
		}
		end := closing(w.data, w.i+1)
		key := unquote(w.data[w.i:min(end+1, len(w.data))])
		w.i = end + 1
		if w.space(); w.i >= len(w.data) || w.data[w.i] != ':' {
			return nil, false
		}
		w.i++
		ft, seg := member(t, key)
		w.path = append(w.path, seg)
		r, ok := w.value(ft, depth+1)
		w.path = w.path[:len(w.path)-1]
		if r != nil || !ok {
			return r, ok
		}
		if more, ok := w.next('}'); !more {
			return nil, ok
		}
	}
}

func (w *walker) array(t reflect.Type, depth int) (*Refusal, bool) {
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	w.i++
	for n := 0; ; n++ {
		w.space()
		if w.i < len(w.data) && w.data[w.i] == ']' && n == 0 {
			w.i++
			return nil, true
		}
		w.path = append(w.path, "["+strconv.Itoa(n)+"]")
		r, ok := w.value(elem, depth+1)
		w.path = w.path[:len(w.path)-1]
		if r != nil || !ok {
			return r, ok
		}
		if more, ok := w.next(']'); !more {
			return nil, ok
		}
	}
}

// next consumes a comma (more: another member follows) or the closing
// byte; ok is false if it finds neither.
func (w *walker) next(closer byte) (more, ok bool) {
	w.space()
	if w.i < len(w.data) && (w.data[w.i] == ',' || w.data[w.i] == closer) {
		w.i++
		return w.data[w.i-1] == ',', true
	}
	return false, false
}

func (w *walker) space() {
	for w.i < len(w.data) && strings.IndexByte(" \t\r\n", w.data[w.i]) >= 0 {
		w.i++
	}
}

func (w *walker) refuse(start int, raw []byte) *Refusal {
	s := bytes.TrimSpace(raw)
	if err := Check(s); err != nil {
		return &Refusal{Offset: start, Path: strings.TrimPrefix(strings.Join(w.path, ""), "."), Value: string(s), Err: err}
	}
	return nil
}

// closing is the index of the quote that ends the string whose text
// starts at j, or len(data).
func closing(data []byte, j int) int {
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return len(data)
		}
		k += j
		n := 0
		for b := k - 1; b >= j && data[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return k
		}
		j = k + 1
	}
}

// scalarEnd is where the number or literal starting at i ends.
func scalarEnd(data []byte, i int) int {
	for i < len(data) && strings.IndexByte(" \t\r\n,]}:\"[{", data[i]) < 0 {
		i++
	}
	return i
}

// unquote is a JSON string's value, or its raw text if it is not one.
func unquote(q []byte) string {
	if bytes.IndexByte(q, '\\') < 0 && len(q) >= 2 {
		return string(q[1 : len(q)-1])
	}
	var s string
	if json.Unmarshal(q, &s) != nil {
		return string(q)
	}
	return s
}
