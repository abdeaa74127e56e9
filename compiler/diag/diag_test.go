package diag

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Messages quote spec values: a 15 MB one reached the log whole.
func TestCapped(t *testing.T) {
	long := strings.Repeat("é", MaxMsg) // two bytes a rune: the cut falls inside one
	l := List{{Msg: "short"}, {Path: "labels." + long, Msg: "label value " + long}}
	c := l.Capped()
	if c[0].Msg != "short" {
		t.Errorf("a short message changed: %q", c[0].Msg)
	}
	for _, s := range []string{c[1].Msg, c[1].Path} {
		if len(s) > MaxMsg+40 || !utf8.ValidString(s) || !strings.HasSuffix(s, " bytes more)") {
			t.Errorf("capped to %d bytes, valid UTF-8 %v: %.80q…%q", len(s), utf8.ValidString(s), s, s[max(0, len(s)-30):])
		}
	}
	if l[1].Msg == c[1].Msg {
		t.Error("Capped changed the list it was given, or nothing")
	}
}
