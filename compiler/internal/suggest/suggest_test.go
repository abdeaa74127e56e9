package suggest

import "testing"

func TestSuggest(t *testing.T) {
	types := []string{"g5.2xlarge", "g5.xlarge", "g6.2xlarge", "p5.48xlarge", "m7i.xlarge"}
	for _, tc := range []struct {
		name  string
		known []string
		want  string
	}{
		{"g5.2xlrge", types, `; did you mean "g5.2xlarge"?`},   // a dropped letter
		{"g5.2xlaareg", types, `; did you mean "g5.2xlarge"?`}, // doubled, swapped
		{"G5.2XLARGE", types, `; did you mean "g5.2xlarge"?`},  // case
		{"p5.48xl", types, ""},                                 // too far
		{"t3.micro", types, ""},                                // nothing close
		{"g5.2xlarge", types, ""},                              // itself: known, no hint
		{"servng", []string{"serving", "batch"}, `; did you mean "serving"?`},
		{"bach", []string{"serving", "batch"}, `; did you mean "batch"?`},
		{"A10", []string{"A100", "A10G", "H100"}, `; did you mean "A100"?`}, // a tie goes to the first sorted
		{"h100", []string{"A100", "A10G", "H100"}, `; did you mean "H100"?`},
		{"", []string{"a"}, ""},
	} {
		if got := Hint(tc.name, tc.known); got != tc.want {
			t.Errorf("Hint(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"abc", "abc", 0}, {"abc", "acb", 1}, {"abc", "ab", 1}, {"abc", "xbc", 1},
		{"kitten", "sitting", 3}, {"", "abc", 3}, {"ab", "ba", 1},
		{"abcdefgh", "hgfedcba", 4}, // past the limit: limit+1
	} {
		if got := distance(tc.a, tc.b, 3); got != min(tc.want, 4) {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, min(tc.want, 4))
		}
	}
}
