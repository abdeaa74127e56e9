package live

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"unicode/utf8"

	kjson "sigs.k8s.io/json"

	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/quantity"
)

// list is what kubectl prints: kind List (or NodeList, PodList), its items
// each of one kind.
type list[T any] struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Items      []T    `json:"items"`
}

// decodeList decodes f as kubectl's list of kind (List or kindList, v1),
// in one pass, as the API server decodes a request body
// (kjson.UnmarshalStrict: exact field names, a duplicate field an error;
// fields this version does not know are ignored, as a newer cluster's
// are). Positions cost a second look only when there is an error.
func decodeList[T any](f *file, kind string) ([]T, error) {
	// Decoding parses every quantity, and Kubernetes' parser runs for
	// minutes on a huge exponent: such a quantity is refused at its value.
	if quantity.Suspect(f.data) {
		if r := quantity.InJSON(f.data, reflect.TypeFor[list[T]]()); r != nil {
			return nil, &Error{Pos: f.pos(int64(r.Offset)), Msg: r.Error()}
		}
	}
	var l list[T]
	strict, err := kjson.UnmarshalStrict(f.data, &l, kjson.DisallowDuplicateFields)
	if err != nil {
		return nil, f.locate(err, &list[T]{}, func(raw []byte) error {
			var v T
			_, err := kjson.UnmarshalStrict(raw, &v)
			return err
		})
	}
	if len(strict) > 0 {
		return nil, f.strictError(strict[0])
	}
	// Outside strings JSON's grammar refuses a byte that is not UTF-8;
	// inside them it would be read as U+FFFD.
	if bad := invalidUTF8(f.data); bad >= 0 {
		return nil, &Error{Pos: f.pos(int64(bad)), Msg: "invalid UTF-8 in a string: JSON text is UTF-8"}
	}
	top := f.pos(0)
	top.Line, top.Column = 0, 0
	switch {
	case l.Kind != "List" && l.Kind != kind+"List":
		return nil, &Error{Pos: top, Msg: fmt.Sprintf("kind %q, want List or %sList: the JSON of '%s'", l.Kind, kind, f.cmd)}
	case l.APIVersion != "v1":
		return nil, &Error{Pos: top, Msg: fmt.Sprintf("apiVersion %q, want v1", l.APIVersion)}
	}
	return l.Items, nil
}

// locate places err, which kjson gives without an offset: encoding/json,
// decoding the same text into the same type, finds the same syntax or
// type error and says where; an error of a value's own decoding (a
// quantity's) is at the first item that fails alone.
func (f *file) locate(err error, into any, item func([]byte) error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch e := json.Unmarshal(f.data, into); {
	case errors.As(e, &syn) && syn.Offset >= int64(len(f.data)):
		return &Error{Pos: f.pos(int64(len(f.data))), Msg: "invalid JSON: unexpected end of input"}
	case errors.As(e, &syn):
		return &Error{Pos: f.pos(syn.Offset - 1), Msg: "invalid JSON: " + syn.Error()}
	case errors.As(e, &typ):
		where := typ.Field
		if where == "" {
			where = "value"
		}
		return &Error{Pos: f.pos(typ.Offset - 1), Msg: fmt.Sprintf("%s: a JSON %s, want %s: the JSON of '%s'", where, typ.Value, jsonWant(typ.Type), f.cmd)}
	}
	for i, raw := range f.items() {
		if e := item(raw.data); e != nil {
			return &Error{Pos: f.pos(raw.off), Msg: fmt.Sprintf("items[%d]: %v", i, e)}
		}
	}
	return &Error{Pos: diag.Pos{File: f.name}, Msg: err.Error()}
}

// jsonWant names what JSON a Go type takes.
func jsonWant(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	}
	return "a number"
}

// strictError places a duplicate field at its item.
func (f *file) strictError(err error) error {
	msg := err.Error()
	return &Error{Pos: f.pathPos(msg), Msg: msg}
}

var itemPath = regexp.MustCompile(`items\[(\d+)\]`)

// pathPos is the position of what a strict error's field path names: an
// item (items[N]...), or a duplicate key of the list itself.
func (f *file) pathPos(msg string) diag.Pos {
	if m := itemPath.FindStringSubmatch(msg); m != nil {
		if i, err := strconv.Atoi(m[1]); err == nil {
			return f.itemPos(i)
		}
	}
	if m := topKey.FindStringSubmatch(msg); m != nil {
		if off, ok := f.secondKey(m[1]); ok {
			return f.pos(off)
		}
	}
	return diag.Pos{File: f.name}
}

var topKey = regexp.MustCompile(`^duplicate field "([^".\[]*)"$`)

// rawItem is an item's text and where it begins.
type rawItem struct {
	data []byte
	off  int64
}

// items yields the list's items as text, each where it begins: a token
// pass over the list's keys to items, then over the items. Only errors
// need it.
func (f *file) items() func(yield func(int, rawItem) bool) {
	return func(yield func(int, rawItem) bool) {
		dec := json.NewDecoder(bytes.NewReader(f.data))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return
			}
			var raw json.RawMessage
			if tok != "items" {
				if dec.Decode(&raw) != nil {
					return
				}
				continue
			}
			if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
				return
			}
			for j := 0; dec.More(); j++ {
				off := skipSpace(f.data, dec.InputOffset())
				if dec.Decode(&raw) != nil || !yield(j, rawItem{raw, off}) {
					return
				}
			}
			return
		}
	}
}

// itemOffset is where item i of the list begins.
func (f *file) itemOffset(i int) (int64, bool) {
	for j, raw := range f.items() {
		if j == i {
			return raw.off, true
		}
	}
	return 0, false
}

// secondKey is where the list's key name appears a second time.
func (f *file) secondKey(name string) (int64, bool) {
	dec := json.NewDecoder(bytes.NewReader(f.data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0, false
	}
	seen := false
	for dec.More() {
		before := skipSpace(f.data, dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return 0, false
		}
		if tok == name {
			if seen {
				return before, true
			}
			seen = true
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return 0, false
		}
	}
	return 0, false
}

// skipSpace is the offset of the first byte at or after off that is
// neither white space nor the comma between array items.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && bytes.IndexByte([]byte(" \t\r\n,"), data[off]) >= 0 {
		off++
	}
	return off
}

// invalidUTF8 is the offset of data's first byte that is not UTF-8, or -1.
func invalidUTF8(data []byte) int {
	if utf8.Valid(data) {
		return -1
	}
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}
