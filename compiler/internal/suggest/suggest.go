// Package suggest finds the known name a misspelled one was meant to be,
// for "did you mean" in the spec's errors.
package suggest

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Hint is "; did you mean "x"?" for the known name closest to name, or ""
// when none is close: the same name in another case, or one within an edit
// distance of a third of name's length (at least 1, at most 3), the
// likeliest typos (a dropped, doubled, swapped or wrong character). Ties go
// to the first in sorted order, so the message is the same every run.
func Hint(name string, known []string) string {
	if best, ok := Closest(name, known); ok {
		return "; did you mean " + strconv.Quote(best) + "?"
	}
	return ""
}

// Closest is the known name Hint suggests, if any.
func Closest(name string, known []string) (string, bool) {
	if name == "" || utf8.RuneCountInString(name) > 253 || slices.Contains(known, name) {
		return "", false // known, or no name at all: nothing to suggest
	}
	sorted := slices.Clone(known)
	slices.Sort(sorted)
	for _, k := range sorted {
		if k != name && strings.EqualFold(k, name) {
			return k, true
		}
	}
	limit := min(max(utf8.RuneCountInString(name)/3, 1), 3)
	best, bestD := "", limit+1
	for _, k := range sorted {
		if k == name || utf8.RuneCountInString(k) > 253 {
			continue
		}
		if d := distance(name, k, limit); d < bestD {
			best, bestD = k, d
		}
	}
	return best, bestD <= limit
}

// distance is the optimal-string-alignment distance between a and b
// (Levenshtein's insertions, deletions and substitutions, and adjacent
// transpositions), or limit+1 once it must exceed limit.
func distance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
