package plan

import (
	"encoding/json"
	"errors"
	"fmt"
)

// A big fleet's report is tens of megabytes, nearly all of it the pools
// each class is refused by, which a plan does not read. scanner walks the
// document's structure and hands each value a plan reads to
// encoding/json, skipping the rest at the speed of a byte loop: decoding
// all of it cost a plan of the benchmark's XL fleet more than its check.
// What it skips it checks only for structure; what it hands on,
// encoding/json checks whole.
type scanner struct {
	b []byte
	i int
}

var errSyntax = errors.New("not a JSON document")

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next skips white space and returns the next byte, 0 at the end.
func (s *scanner) next() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

func (s *scanner) expect(c byte) error {
	if s.next() != c {
		return fmt.Errorf("%w: want %q at byte %d", errSyntax, c, s.i)
	}
	s.i++
	return nil
}

// value returns the raw bytes of the value at the scanner, and moves past
// it. Nesting is counted, not recursed into, so no depth of input can
// exhaust the stack.
func (s *scanner) value() ([]byte, error) {
	s.ws()
	start, depth := s.i, 0
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch c {
		case '"':
			if err := s.skipString(); err != nil {
				return nil, err
			}
		case '{', '[':
			depth++
			s.i++
		case '}', ']':
			if depth == 0 {
				return nil, fmt.Errorf("%w: unexpected %q at byte %d", errSyntax, c, s.i)
			}
			depth--
			s.i++
		case ',', ':':
			if depth == 0 {
				return nil, fmt.Errorf("%w: unexpected %q at byte %d", errSyntax, c, s.i)
			}
			s.i++
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			// A number or literal: its bytes up to a delimiter.
			for s.i < len(s.b) && !delimiter(s.b[s.i]) {
				s.i++
			}
		}
		if depth == 0 {
			return s.b[start:s.i], nil
		}
	}
	return nil, fmt.Errorf("%w: it ends inside a value", errSyntax)
}

func delimiter(c byte) bool {
	switch c {
	case ',', ':', '{', '}', '[', ']', '"', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

func (s *scanner) skipString() error {
	s.i++ // the opening quote
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			s.i += 2
		case '"':
			s.i++
			return nil
		default:
			s.i++
		}
	}
	return fmt.Errorf("%w: it ends inside a string", errSyntax)
}

// object calls f with each key of the object at the scanner; f must
// consume the key's value.
func (s *scanner) object(f func(key string) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.next() == '}' {
		s.i++
		return nil
	}
	for {
		raw, err := s.value()
		if err != nil {
			return err
		}
		var key string
		if err := json.Unmarshal(raw, &key); err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := f(key); err != nil {
			return err
		}
		switch s.next() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return fmt.Errorf("%w: want ',' or '}' at byte %d", errSyntax, s.i)
		}
	}
}

// array calls f for each element of the array at the scanner; f must
// consume it.
func (s *scanner) array(f func() error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if s.next() == ']' {
		s.i++
		return nil
	}
	for {
		if err := f(); err != nil {
			return err
		}
		switch s.next() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return fmt.Errorf("%w: want ',' or ']' at byte %d", errSyntax, s.i)
		}
	}
}

// decode decodes the value at the scanner into v.
func (s *scanner) decode(v any) error {
	raw, err := s.value()
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// skip moves past the value at the scanner.
func (s *scanner) skip() error {
	_, err := s.value()
	return err
}
