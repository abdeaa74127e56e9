package load

import (
	"fmt"
	"strings"
	"testing"

	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"
)

// TestExactNumbers: a literal CUE cannot hold is refused at its position,
// every other number is left to CUE.
func TestExactNumbers(t *testing.T) {
	for src, want := range map[string]string{
		"x: 1e1000000":           "1:4: the number 1e1000000 has an exponent beyond ±100000, which CUE cannot hold (it would read it as 1)",
		"x: -1e-1000000000":      "1:5: the number 1e-1000000000 has an exponent beyond ±100000",
		"x: 12e100000":           "1:4: the number 12e100000 has an exponent beyond ±100000, which CUE cannot hold (it would read it as 12)",
		"x: 0.01e-99999":         "1:4: the number 0.01e-99999 has an exponent",
		"x: [1, {y: 1E+100001}]": "1:12: the number 1E+100001",
		"x: 1e100000":            "",
		"x: 1e-99999":            "",
		"x: 1.5Gi":               "",
		"x: 0x10 + 0o7 + 0b1":    "",
		"x: 1_000.5e3":           "",
		"x: \"1e1000000\"":       "",
	} {
		f, err := parser.ParseFile("f.cue", src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		got := ""
		if err := exactNumbers(f); err != nil {
			p := err.(cueerrors.Error).Position()
			got = fmt.Sprintf("%d:%d: %v", p.Line(), p.Column(), err)
		}
		if want == "" && got != "" || !strings.HasPrefix(got, want) {
			t.Errorf("%s: %q, want %q", src, got, want)
		}
	}
}
