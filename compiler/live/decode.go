package live

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	kjson "sigs.k8s.io/json"
)

// decodeList decodes f as kubectl's list of kind (List or kindList, v1)
// and returns its items with the offset where each begins. The list's own
// keys are read token by token, so that each item's offset is known; each
// item is decoded as the API server decodes a request body
// (kjson.UnmarshalStrict: exact field names, a duplicate field an error;
// fields this version does not know are ignored, as a newer cluster's are).
func decodeList[T any](f *file, kind string) ([]T, []int64, error) {
	dec := json.NewDecoder(bytes.NewReader(f.data))
	fail := func(err error) ([]T, []int64, error) { return nil, nil, f.jsonError(err, 0) }
	if tok, err := dec.Token(); err != nil {
		return fail(err)
	} else if tok != json.Delim('{') {
		return nil, nil, &Error{Pos: f.pos(dec.InputOffset() - 1), Msg: fmt.Sprintf("a JSON %s, want the list object of '%s'", jsonKind(tok), f.cmd)}
	}
	var apiVersion, listKind string
	var items []T
	var at []int64
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		key, _ := tok.(string)
		if seen[key] {
			return nil, nil, &Error{Pos: f.pos(dec.InputOffset() - int64(len(key)) - 2), Msg: fmt.Sprintf("duplicate field %q", key)}
		}
		seen[key] = true
		switch key {
		case "apiVersion", "kind":
			s := &apiVersion
			if key == "kind" {
				s = &listKind
			}
			if err := dec.Decode(s); err != nil {
				return fail(err)
			}
		case "items":
			if items, at, err = decodeItems[T](f, dec); err != nil {
				return nil, nil, err
			}
		default: // metadata, and what a newer kubectl adds
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return fail(err)
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return fail(err)
	}
	if rest := bytes.TrimLeft(f.data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, nil, &Error{Pos: f.pos(int64(len(f.data) - len(rest))), Msg: "more than one JSON value"}
	}
	// Outside strings JSON's grammar refuses a byte that is not UTF-8;
	// inside them encoding/json would read it as U+FFFD.
	if bad := invalidUTF8(f.data); bad >= 0 {
		return nil, nil, &Error{Pos: f.pos(int64(bad)), Msg: "invalid UTF-8 in a string: JSON text is UTF-8"}
	}
	top := f.pos(0)
	top.Line, top.Column = 0, 0
	switch {
	case listKind != "List" && listKind != kind+"List":
		return nil, nil, &Error{Pos: top, Msg: fmt.Sprintf("kind %q, want List or %sList: the JSON of '%s'", listKind, kind, f.cmd)}
	case apiVersion != "v1":
		return nil, nil, &Error{Pos: top, Msg: fmt.Sprintf("apiVersion %q, want v1", apiVersion)}
	}
	return items, at, nil
}

// decodeItems decodes the array dec is at, item by item.
func decodeItems[T any](f *file, dec *json.Decoder) ([]T, []int64, error) {
	if tok, err := dec.Token(); err != nil {
		return nil, nil, f.jsonError(err, 0)
	} else if tok != json.Delim('[') {
		return nil, nil, &Error{Pos: f.pos(dec.InputOffset() - 1), Msg: fmt.Sprintf("items: a JSON %s, want an array", jsonKind(tok))}
	}
	var items []T
	var at []int64
	for dec.More() {
		start := skipSpace(f.data, dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, f.jsonError(err, 0)
		}
		var v T
		strict, err := kjson.UnmarshalStrict(raw, &v, kjson.DisallowDuplicateFields)
		if err == nil && len(strict) > 0 {
			err = strict[0]
		}
		if err != nil {
			return nil, nil, f.jsonError(fmt.Errorf("items[%d]: %w", len(items), err), start)
		}
		items, at = append(items, v), append(at, start)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, f.jsonError(err, 0)
	}
	return items, at, nil
}

// skipSpace is the offset of the first byte at or after off that is
// neither white space nor the comma between array items.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && bytes.IndexByte([]byte(" \t\r\n,"), data[off]) >= 0 {
		off++
	}
	return off
}

// jsonError places a decoding error at its line and column, where the
// error gives an offset (relative to base, the start of the item it
// decoded); otherwise at base.
func (f *file) jsonError(err error, base int64) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		// A Decoder reading token by token reports offsets from where its
		// last value began; one pass over the whole text gives the byte.
		var whole json.RawMessage
		if e := json.Unmarshal(f.data, &whole); errors.As(e, &syn) {
			return &Error{Pos: f.pos(syn.Offset - 1), Msg: "invalid JSON: " + syn.Error()}
		}
		return &Error{Pos: f.pos(base), Msg: "invalid JSON: " + syn.Error()}
	case errors.As(err, &typ):
		where := typ.Field
		if where == "" {
			where = "value"
		}
		return &Error{Pos: f.pos(base + typ.Offset - 1), Msg: fmt.Sprintf("%s: a JSON %s, want %s: the JSON of '%s'", where, typ.Value, typ.Type, f.cmd)}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return &Error{Pos: f.pos(int64(len(f.data))), Msg: "invalid JSON: unexpected end of input"}
	}
	return &Error{Pos: f.pos(base), Msg: err.Error()}
}

func jsonKind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		if tok == json.Delim('[') {
			return "array"
		}
		return "object"
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

// invalidUTF8 is the offset of data's first byte that is not UTF-8, or -1.
// encoding/json would take it as U+FFFD, so that two different names read
// alike.
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
