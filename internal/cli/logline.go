package cli

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What gpufleet prints may hold what a stranger's pull request chose: spec
// values quoted in errors, a spec file's name, a path or a line from the
// committed tree, a live node's name. GitHub Actions reads workflow
// commands from every line of a step's stdout and stderr
// (internal/runnerlog models how): "::name::data" at a line's start after
// any white space, "##[name]data" anywhere in a line, and a line ends at
// LF, CR or CR LF. Its search for "::" and "##[" is culture-sensitive, so
// it looks through runes that have no weight in ICU's collation (NUL, the
// soft hyphen, zero-width joiners, some combining marks). So before any
// such text is printed:
//
//   - every rune that is not printable, or may be invisible to the
//     runner's search, is escaped as in a Go string ("\r", "\x00",
//     "\u00ad"), so no line breaks inside it and nothing hides between
//     the characters of "::" or "##[" (hidden);
//   - "##[" becomes `##\[` (logText);
//   - a line that would start with "::" after its white space is given a
//     "./" before it (logLine: a file name, an error) or a `\` before the
//     "::" (diffLine: a line of a diff, whose first column is the diff's).
//
// JSON documents keep every string's value: jsonSafe writes the same
// runes as JSON escapes ("\u00ad", "##\u005b"), which any JSON reader
// decodes back.

// logLine makes s safe as one line of a CI log: a whole line gpufleet
// prints, or a part of one between words of its own.
func logLine(s string) string {
	s = logText(s)
	if strings.HasPrefix(strings.TrimLeftFunc(s, unicode.IsSpace), "::") {
		s = "./" + s
	}
	return s
}

// diffLine makes one line of a unified diff safe as a line of a CI log,
// keeping its first column (' ', '+', '-' or '@').
func diffLine(s string) string {
	s = logText(s)
	rest := strings.TrimLeftFunc(s, unicode.IsSpace)
	if strings.HasPrefix(rest, "::") {
		i := len(s) - len(rest)
		s = s[:i] + `\` + rest
	}
	return s
}

// logText escapes the hidden runes in s, and every "##[".
func logText(s string) string {
	return strings.ReplaceAll(escapeRunes(s, hidden), "##[", `##\[`)
}

// termText escapes, as logText does, what a terminal would act on rather
// than print: C0 controls but tab, CR and LF (a workflow command
// %-escapes those), DEL, C1 controls and bytes that are not UTF-8. For
// text the runner reads whole, such as an annotation's message.
func termText(s string) string {
	return escapeRunes(s, func(r rune) bool {
		return r < ' ' && r != '\t' && r != '\r' && r != '\n' || r >= 0x7f && r <= 0x9f
	})
}

// escapeRunes writes each rune of s that esc holds, and each byte that is
// not UTF-8, as a Go escape.
func escapeRunes(s string, esc func(rune) bool) string {
	if strings.IndexFunc(s, esc) < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case esc(r):
			b.WriteString(goEscape(r))
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// hidden is a rune a log must not print as it is: one that is not
// printable (control and format characters, line and paragraph
// separators, spaces but ' ', unassigned code points) but tab, or one the
// runner's culture-sensitive search may look through although Go prints
// it (combining marks, default-ignorable code points like the Hangul
// fillers).
func hidden(r rune) bool {
	if r < utf8.RuneSelf {
		return r != '\t' && (r < ' ' || r == 0x7f)
	}
	return !strconv.IsPrint(r) || unicode.In(r, unicode.Mn, unicode.Me, unicode.Other_Default_Ignorable_Code_Point)
}

// goEscape is r as a Go string escapes it.
func goEscape(r rune) string {
	if !strconv.IsPrint(r) {
		q := strconv.QuoteRune(r)
		return q[1 : len(q)-1]
	}
	if r > 0xFFFF {
		return fmt.Sprintf(`\U%08x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// jsonSafe is a JSON document, as encoding/json wrote it, with every
// hidden rune (all of which are in strings: the encoder's structure is
// ASCII, and its white space is ' ' and LF) written as a \u escape, and
// every "##[" (which only a string holds) as "##\u005b". A reader decodes
// the same values.
func jsonSafe(doc []byte) []byte {
	if bytes.IndexFunc(doc, func(r rune) bool { return r != '\n' && hidden(r) }) < 0 && !bytes.Contains(doc, []byte("##[")) {
		return doc
	}
	var b bytes.Buffer
	for len(doc) > 0 {
		r, n := utf8.DecodeRune(doc)
		switch {
		case r == '\n' || !hidden(r) && !(r == utf8.RuneError && n == 1):
			b.Write(doc[:n])
		case r > 0xFFFF:
			hi, lo := utf16Surrogates(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		doc = doc[n:]
	}
	return bytes.ReplaceAll(b.Bytes(), []byte("##["), []byte(`##\u005b`))
}

func utf16Surrogates(r rune) (hi, lo rune) {
	r -= 0x10000
	return 0xD800 + (r>>10)&0x3FF, 0xDC00 + r&0x3FF
}
