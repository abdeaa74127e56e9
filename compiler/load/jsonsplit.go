package load

import (
	"bytes"
	"unicode/utf8"
)

// splitJSON gives each of k shards its own text of a JSON spec: the entries
// of the split sections that another shard owns are blanked out, so that
// a shard parses only its share. Blanking keeps every byte's line and
// column, so positions are the whole file's. It returns nil for text it
// does not know to be a spec (not an object, a key with an escape, bad
// JSON): the shards then parse the whole text and prune its syntax.
func splitJSON(data []byte, k int) [][]byte {
	s := jsonScan{b: data}
	sections, ok := s.spec()
	if !ok {
		return nil
	}
	out := make([][]byte, k)
	for i := range out {
		t := bytes.Clone(data)
		for _, sec := range sections {
			kept := false
			for j, m := range sec.members {
				if j > 0 {
					blank(t[sec.commas[j-1] : sec.commas[j-1]+1])
				}
				if owner(m.name, k) != i {
					blank(t[m.start:m.end])
					continue
				}
				if kept {
					// The comma before a kept member separates it
					// from the kept one before it.
					t[sec.commas[j-1]] = ','
				}
				kept = true
			}
		}
		out[i] = t
	}
	return out
}

// blank turns b into spaces, keeping line breaks.
func blank(b []byte) {
	for i, c := range b {
		if c != '\n' && c != '\r' {
			b[i] = ' '
		}
	}
}

type member struct {
	name       string
	start, end int
}

// section is a split section's members and the commas between them.
type section struct {
	members []member
	commas  []int
}

// jsonScan finds the members of a JSON spec's split sections without
// building anything else.
type jsonScan struct {
	b []byte
	i int
	// keyStart is where the member being scanned begins; lastComma is
	// the comma after the one before it.
	keyStart, lastComma int
}

func (s *jsonScan) spec() ([]section, bool) {
	var sections []section
	ok := s.object(func(name string) bool {
		if !shardedSections[name] || s.peek() != '{' {
			return s.value(0)
		}
		var sec section
		ok := s.object(func(entry string) bool {
			if len(sec.members) > 0 {
				sec.commas = append(sec.commas, s.lastComma)
			}
			start := s.keyStart
			if !s.value(0) {
				return false
			}
			sec.members = append(sec.members, member{entry, start, s.i})
			return true
		})
		sections = append(sections, sec)
		return ok
	})
	s.space()
	return sections, ok && s.i == len(s.b)
}

func (s *jsonScan) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *jsonScan) peek() byte {
	s.space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// object scans an object, calling member after each key and its colon.
func (s *jsonScan) object(member func(key string) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		s.space()
		s.keyStart = s.i
		key, plain := s.str()
		if !plain || s.peek() != ':' {
			return false
		}
		s.i++
		if !member(key) {
			return false
		}
		switch s.peek() {
		case ',':
			s.lastComma = s.i
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// str scans a string; plain is false if it is not one, or has an escape
// or invalid UTF-8 (whose name CUE, not this scan, would decode).
func (s *jsonScan) str() (v string, plain bool) {
	if s.peek() != '"' {
		return "", false
	}
	start := s.i + 1
	plain = true
	for s.i++; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			// Invalid UTF-8 too is decoded, to U+FFFD.
			key := s.b[start : s.i-1]
			return string(key), plain && utf8.Valid(key)
		case c == '\\':
			plain = false
			s.i++
		case c < 0x20:
			return "", false
		}
	}
	return "", false
}

// maxSplitDepth bounds nesting, so that no text can exhaust the stack.
const maxSplitDepth = 1000

// value skips one value. It checks only what finding the members needs:
// a shard that keeps a malformed entry fails to parse it, and the spec is
// then evaluated whole.
func (s *jsonScan) value(depth int) bool {
	if depth > maxSplitDepth {
		return false
	}
	switch s.peek() {
	case '{':
		return s.object(func(string) bool { return s.value(depth + 1) })
	case '[':
		s.i++
		if s.peek() == ']' {
			s.i++
			return true
		}
		for {
			if !s.value(depth + 1) {
				return false
			}
			switch s.peek() {
			case ',':
				s.i++
			case ']':
				s.i++
				return true
			default:
				return false
			}
		}
	case '"':
		for s.i++; s.i < len(s.b); s.i++ {
			switch s.b[s.i] {
			case '"':
				s.i++
				return true
			case '\\':
				s.i++
			}
		}
		return false
	}
	start := s.i
	for s.i < len(s.b) && isScalarByte(s.b[s.i]) {
		s.i++
	}
	return s.i > start
}

func isScalarByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.'
}
