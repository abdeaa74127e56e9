package encode

import (
	"encoding/json"
	"fmt"
)

// parseJSON is what a json.Decoder with UseNumber followed by yamlNumbers
// makes of b, which encoding/json wrote: maps, slices, strings, bools, nil
// and numbers typed as go-yaml reads them. Decoding into interfaces by
// reflection was a third of encoding a big fleet's tree. Since the tree
// emitter (jsontree.go), it reads only the documents that one declines.
// TestParseJSONMatchesDecoder and FuzzParseJSON hold it to encoding/json.
func parseJSON(b []byte) (any, error) {
	p := jsonParser{b: b}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if p.space(); p.i != len(p.b) {
		return nil, p.errorf("data after the value")
	}
	return v, nil
}

type jsonParser struct {
	b []byte
	i int
}

// maxDepth bounds nesting as encoding/json does, so no input can exhaust
// the stack.
const maxDepth = 10000

func (p *jsonParser) errorf(format string, args ...any) error {
	return fmt.Errorf("encode: JSON at offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *jsonParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, p.errorf("nested too deeply")
	}
	if p.i >= len(p.b) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == '-' || isDigit(c):
		return p.number()
	}
	for _, lit := range []struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(p.b)-p.i >= len(lit.text) && string(p.b[p.i:p.i+len(lit.text)]) == lit.text {
			p.i += len(lit.text)
			return lit.v, nil
		}
	}
	return nil, p.errorf("unexpected %q", p.b[p.i])
}

func (p *jsonParser) object(depth int) (any, error) {
	p.i++ // {
	m := map[string]any{}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return m, nil
	}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, p.errorf("want a key")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, p.errorf("want ':'")
		}
		p.i++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[k] = v
		p.space()
		if p.i >= len(p.b) {
			return nil, p.errorf("unexpected end")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return m, nil
		default:
			return nil, p.errorf("want ',' or '}'")
		}
	}
}

func (p *jsonParser) array(depth int) (any, error) {
	p.i++ // [
	s := []any{}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return s, nil
	}
	for {
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		s = append(s, v)
		p.space()
		if p.i >= len(p.b) {
			return nil, p.errorf("unexpected end")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return s, nil
		default:
			return nil, p.errorf("want ',' or ']'")
		}
	}
}

// str reads a string: as is when it has no escape or control character,
// else by encoding/json, which knows JSON's escapes.
func (p *jsonParser) str() (string, error) {
	start := p.i
	p.i++ // "
	plain := true
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			if plain {
				return string(p.b[start+1 : p.i-1]), nil
			}
			var s string
			if err := json.Unmarshal(p.b[start:p.i], &s); err != nil {
				return "", p.errorf("%v", err)
			}
			return s, nil
		case c == '\\':
			plain = false
			p.i += 2
		case c < 0x20:
			return "", p.errorf("control character in a string")
		default:
			if c >= 0x80 {
				plain = false // invalid UTF-8 is replaced, as encoding/json does
			}
			p.i++
		}
	}
	return "", p.errorf("unterminated string")
}

// number reads a JSON number's text and types it as yamlNumbers does.
func (p *jsonParser) number() (any, error) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.b) && isDigit(p.b[p.i]) {
			p.i++
			n++
		}
		return n
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case digits() == 0:
		return nil, p.errorf("malformed number")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.errorf("malformed number")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.errorf("malformed number")
		}
	}
	return yamlNumbers(json.Number(p.b[start:p.i])), nil
}
