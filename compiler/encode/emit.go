package encode

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	goyaml "go.yaml.in/yaml/v2"
)

// emitYAML writes a document as go-yaml v2 writes it, without go-yaml's
// general emitter, which was most of a big fleet's render time. It knows
// exactly only what marshalOne produces in practice (block mappings and
// sequences of plain or double-quoted scalars) and reports false for
// anything else, so that the caller asks go-yaml: every rule below is
// go-yaml's, and TestEmitMatchesGoYAML and FuzzEmitYAML hold it to that.
func emitYAML(v any) ([]byte, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	if len(m) == 0 {
		return []byte("{}\n"), true
	}
	e := emitter{b: make([]byte, 0, 512)}
	if !e.mapping(m, 0, false) {
		return nil, false
	}
	return e.b, true
}

type emitter struct{ b []byte }

// bestWidth is go-yaml's line width: a plain scalar is folded at a space
// past it.
const bestWidth = 80

// mapping writes m's entries at indent; inItem means the first entry
// follows a sequence item's "- " on the same line.
func (e *emitter) mapping(m map[string]any, indent int, inItem bool) bool {
	keys := make([]string, 0, len(m))
	for k := range m {
		// go-yaml writes a key longer than 128 as a complex key, "? k".
		if len(k) > 128 || strings.IndexByte(k, ' ') >= 0 {
			return false
		}
		keys = append(keys, k)
	}
	if !ordered(keys) {
		return false
	}
	sort.Slice(keys, func(i, j int) bool { return keyLess(keys[i], keys[j]) })
	for i, k := range keys {
		if i > 0 || !inItem {
			e.indent(indent)
		}
		start := len(e.b)
		if !e.scalar(k, 0) {
			return false
		}
		e.b = append(e.b, ':')
		if !e.value(m[k], indent, indent+len(e.b)-start) {
			return false
		}
	}
	return true
}

// value writes what follows "key:", col being the column after the colon.
func (e *emitter) value(v any, indent, col int) bool {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			e.b = append(e.b, " {}\n"...)
			return true
		}
		e.b = append(e.b, '\n')
		return e.mapping(t, indent+2, false)
	case []any:
		if len(t) == 0 {
			e.b = append(e.b, " []\n"...)
			return true
		}
		// A sequence in a mapping is not indented.
		e.b = append(e.b, '\n')
		return e.sequence(t, indent)
	}
	e.b = append(e.b, ' ')
	if !e.scalar(v, col+1) {
		return false
	}
	e.b = append(e.b, '\n')
	return true
}

func (e *emitter) sequence(s []any, indent int) bool {
	for _, x := range s {
		e.indent(indent)
		e.b = append(e.b, "- "...)
		switch t := x.(type) {
		case map[string]any:
			if len(t) == 0 {
				e.b = append(e.b, "{}\n"...)
				continue
			}
			if !e.mapping(t, indent+2, true) {
				return false
			}
		case []any:
			return false
		default:
			if !e.scalar(t, indent+2) {
				return false
			}
			e.b = append(e.b, '\n')
		}
	}
	return true
}

func (e *emitter) indent(n int) {
	for range n {
		e.b = append(e.b, ' ')
	}
}

// scalar writes v starting at column col.
func (e *emitter) scalar(v any, col int) bool {
	switch t := v.(type) {
	case nil:
		e.b = append(e.b, "null"...)
	case bool:
		e.b = strconv.AppendBool(e.b, t)
	case int:
		e.b = strconv.AppendInt(e.b, int64(t), 10)
	case int64:
		e.b = strconv.AppendInt(e.b, t, 10)
	case uint64:
		e.b = strconv.AppendUint(e.b, t, 10)
	case float64:
		switch {
		case math.IsInf(t, 1):
			e.b = append(e.b, ".inf"...)
		case math.IsInf(t, -1):
			e.b = append(e.b, "-.inf"...)
		case math.IsNaN(t):
			e.b = append(e.b, ".nan"...)
		default:
			e.b = strconv.AppendFloat(e.b, t, 'g', -1, 64)
		}
	case string:
		switch styleOf(t) {
		case plain:
			// Past the line width, go-yaml folds at a space.
			if col+len(t) > bestWidth && strings.IndexByte(t, ' ') >= 0 {
				return false
			}
			e.b = append(e.b, t...)
		case doubleQuoted:
			e.b = append(e.b, '"')
			e.b = append(e.b, t...)
			e.b = append(e.b, '"')
		default:
			return false
		}
	default:
		return false
	}
	return true
}

type style int

const (
	unknown style = iota
	plain
	doubleQuoted
	// numeric is lexStyle's answer for a string starting with a digit:
	// numberStyle asks go-yaml.
	numeric
)

// styleOf is how go-yaml writes a string, for strings of letters, digits,
// ". _ / - + =" ('=' not first), ':' not before a space or at the end, and
// single inner spaces: none of these makes go-yaml's emitter refuse the
// plain style, so the style is the encoder's choice, plain unless the
// string would read back as another type. ('=' is for a label selector,
// which Kustomize's patch targets have.)
func styleOf(s string) style {
	if st := lexStyle(s); st != numeric {
		return st
	}
	return numberStyle(s)
}

// lexStyle is styleOf short of asking go-yaml about a string that starts
// with a digit, for the string and for JSON's bytes alike.
func lexStyle[T string | []byte](s T) style {
	if len(s) == 0 || !(isLetter(s[0]) || isDigit(s[0]) || s[0] == '/') {
		return unknown
	}
	colonOrSpace := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isLetter(c), isDigit(c), c == '.', c == '_', c == '/', c == '-', c == '+', c == '=':
		case c == ':', c == ' ':
			if i == len(s)-1 || s[i+1] == ' ' {
				return unknown
			}
			colonOrSpace = true
		default:
			return unknown
		}
	}
	if !isDigit(s[0]) {
		// Only go-yaml's words (booleans, null) read back as other than a
		// string when they start with a letter. Most strings are longer
		// than any word: no need to look them up.
		if len(s) <= maxWord && resolvesToWord[string(s)] {
			return doubleQuoted
		}
		return plain
	}
	// Numbers, timestamps and base-60 floats: go-yaml's own verdict.
	if colonOrSpace {
		return unknown
	}
	return numeric
}

// numberStyle is go-yaml's style for s, a string lexStyle calls numeric.
func numberStyle(s string) style {
	if st, ok := numberish.m.Load(s); ok {
		return st.(style)
	}
	st := unknown
	if out, err := goyaml.Marshal(s); err == nil {
		switch string(out) {
		case s + "\n":
			st = plain
		case `"` + s + `"` + "\n":
			st = doubleQuoted
		}
	}
	if numberish.n.Add(1) <= maxNumberish {
		numberish.m.Store(s, st)
	}
	return st
}

// numberish memoises go-yaml's style for strings starting with a digit:
// quantities and counts repeat across a fleet's objects. It is bounded, so
// a hostile spec of distinct numbers cannot grow it without end; past the
// bound go-yaml is asked each time.
var numberish struct {
	m sync.Map
	n atomic.Int64
}

const maxNumberish = 1 << 16

// resolvesToWord are the letter-first entries of go-yaml v2's resolve map;
// maxWord is the longest's length.
var resolvesToWord = map[string]bool{}

var maxWord int

func init() {
	for _, w := range strings.Fields("y Y yes Yes YES true True TRUE on On ON n N no No NO false False FALSE off Off OFF null Null NULL") {
		resolvesToWord[w] = true
		maxWord = max(maxWord, len(w))
	}
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
