// Package diag carries positioned findings from every compiler stage to the
// CLI: an error in the spec, a rejected derived object, a checker finding.
package diag

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// Pos is a position in a spec file. Line and Column are 1-based; zero means
// the position is unknown.
type Pos struct {
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

func (p Pos) String() string {
	switch {
	case p.File == "":
		return ""
	case p.Line == 0:
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}

// Compare orders positions by file, line and column.
func (p Pos) Compare(q Pos) int {
	if c := strings.Compare(p.File, q.File); c != 0 {
		return c
	}
	if p.Line != q.Line {
		return p.Line - q.Line
	}
	return p.Column - q.Column
}

// Diagnostic is one problem. Path is the spec path it concerns, such as
// "classes.training.priority".
type Diagnostic struct {
	Pos  Pos    `json:"pos"`
	Path string `json:"path,omitempty"`
	Msg  string `json:"message"`
}

func (d Diagnostic) String() string {
	var b strings.Builder
	if p := d.Pos.String(); p != "" {
		b.WriteString(p)
		b.WriteString(": ")
	}
	if d.Path != "" {
		b.WriteString(d.Path)
		b.WriteString(": ")
	}
	b.WriteString(d.Msg)
	return b.String()
}

// List is a set of diagnostics; as an error it means the spec is invalid.
type List []Diagnostic

func (l List) Error() string {
	lines := make([]string, len(l))
	for i, d := range l {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// MaxMsg bounds a message and a path as printed: they quote spec values,
// and a spec may hold a 15 MB string, which a CI log should not.
const MaxMsg = 1000

// Capped is the list with each message and path cut to MaxMsg bytes (on a
// rune boundary), saying how much was cut.
func (l List) Capped() List {
	out := make(List, len(l))
	for i, d := range l {
		d.Msg, d.Path = capText(d.Msg), capText(d.Path)
		out[i] = d
	}
	return out
}

func capText(s string) string {
	if len(s) <= MaxMsg {
		return s
	}
	cut := MaxMsg
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes more)", s[:cut], len(s)-cut)
}

// Err returns the list as an error, or nil when it is empty.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}

// Sort orders by file, line, column, path and message, and drops duplicates.
func (l *List) Sort() {
	s := *l
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if c := a.Pos.Compare(b.Pos); c != 0 {
			return c < 0
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Msg < b.Msg
	})
	out := s[:0]
	for i, d := range s {
		if i > 0 && d == s[i-1] {
			continue
		}
		out = append(out, d)
	}
	*l = out
}

// RelFile shortens an absolute file name to one relative to dir when it lies
// below it, so messages read like the path the user typed.
func RelFile(dir, file string) string {
	if dir == "" || !filepath.IsAbs(file) {
		return file
	}
	rel, err := filepath.Rel(dir, file)
	if err != nil || strings.HasPrefix(rel, "..") {
		return file
	}
	return rel
}
