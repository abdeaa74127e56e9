package cli

import (
	"strconv"
	"strings"
	"unicode"
)

// logLine makes s, which may hold a spec file's name or a path from the
// committed tree, safe as one line of a CI log. GitHub Actions reads a
// workflow command ("::add-mask::...", "::error::...") from any line of
// stdout or stderr that starts with "::", and a line ends at LF or at a
// lone CR; so every control character is escaped as in a Go string, and a
// line that would start with "::" (a file named so) is given a "./".
func logLine(s string) string {
	if strings.IndexFunc(s, breaksLine) >= 0 {
		var b strings.Builder
		for _, r := range s {
			if breaksLine(r) {
				q := strconv.QuoteRune(r)
				b.WriteString(q[1 : len(q)-1])
			} else {
				b.WriteRune(r)
			}
		}
		s = b.String()
	}
	if strings.HasPrefix(strings.TrimLeft(s, " \t"), "::") {
		s = "./" + s
	}
	return s
}

// breaksLine is a rune a terminal or a log reader may act on: a control
// character (but tab), or a Unicode line or paragraph separator.
func breaksLine(r rune) bool {
	return (unicode.IsControl(r) && r != '\t') || r == '\u2028' || r == '\u2029'
}
