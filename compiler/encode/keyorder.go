package encode

import (
	"strings"
	"unicode"
)

// ordered reports whether keyLess is a total order on keys, so that any
// sort gives go-yaml's order. Compared where they first differ, runes that
// are not digits order as in a dictionary; a digit there brings in
// keyLess's numbers, which are not transitive with the rest ("6a" < "48" <
// "67" < "6a"), and go-yaml's order then depends on map iteration.
func ordered(keys []string) bool {
	digits := false
	for _, k := range keys {
		if strings.ContainsAny(k, "0123456789") {
			digits = true
			break
		}
	}
	if !digits {
		return true
	}
	if len(keys) > 64 {
		return false
	}
	for i, a := range keys {
		for _, b := range keys[i+1:] {
			p := 0
			for p < len(a) && p < len(b) && a[p] == b[p] {
				p++
			}
			if p < len(a) && p < len(b) && (isDigit(a[p]) || isDigit(b[p])) {
				return false
			}
		}
	}
	return true
}

// keyLess is go-yaml v2's order of string keys (keyList.Less): digits
// compare by the number they spell, and letters sort before other runes.
func keyLess(a, b string) bool {
	ar, br := []rune(a), []rune(b)
	for i := 0; i < len(ar) && i < len(br); i++ {
		if ar[i] == br[i] {
			continue
		}
		al, bl := unicode.IsLetter(ar[i]), unicode.IsLetter(br[i])
		if al && bl {
			return ar[i] < br[i]
		}
		if al || bl {
			return bl
		}
		var ai, bi int
		var an, bn int64
		if ar[i] == '0' || br[i] == '0' {
			for j := i - 1; j >= 0 && unicode.IsDigit(ar[j]); j-- {
				if ar[j] != '0' {
					an, bn = 1, 1
					break
				}
			}
		}
		for ai = i; ai < len(ar) && unicode.IsDigit(ar[ai]); ai++ {
			an = an*10 + int64(ar[ai]-'0')
		}
		for bi = i; bi < len(br) && unicode.IsDigit(br[bi]); bi++ {
			bn = bn*10 + int64(br[bi]-'0')
		}
		if an != bn {
			return an < bn
		}
		if ai != bi {
			return ai < bi
		}
		return ar[i] < br[i]
	}
	return len(ar) < len(br)
}

// A member as the fast emitter sorts it: its key's text j[a:b] and its
// key node.
type member struct{ a, b, key int32 }

// orderedMembers is ordered for members' keys, which are ASCII and of
// which some have a digit (else they are ordered).
func orderedMembers(j []byte, ms []member) bool {
	if len(ms) > 64 {
		return false
	}
	for i, ma := range ms {
		a := j[ma.a:ma.b]
		for _, mb := range ms[i+1:] {
			b := j[mb.a:mb.b]
			p := 0
			for p < len(a) && p < len(b) && a[p] == b[p] {
				p++
			}
			if p < len(a) && p < len(b) && (isDigit(a[p]) || isDigit(b[p])) {
				return false
			}
		}
	}
	return true
}

// keyLessASCII is keyLess for ASCII keys, whose bytes are their runes,
// without making runes of them.
func keyLessASCII(a, b []byte) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] == b[i] {
			continue
		}
		al, bl := isLetter(a[i]), isLetter(b[i])
		if al && bl {
			return a[i] < b[i]
		}
		if al || bl {
			return bl
		}
		var ai, bi int
		var an, bn int64
		if a[i] == '0' || b[i] == '0' {
			for j := i - 1; j >= 0 && isDigit(a[j]); j-- {
				if a[j] != '0' {
					an, bn = 1, 1
					break
				}
			}
		}
		for ai = i; ai < len(a) && isDigit(a[ai]); ai++ {
			an = an*10 + int64(a[ai]-'0')
		}
		for bi = i; bi < len(b) && isDigit(b[bi]); bi++ {
			bn = bn*10 + int64(b[bi]-'0')
		}
		if an != bn {
			return an < bn
		}
		if ai != bi {
			return ai < bi
		}
		return a[i] < b[i]
	}
	return len(a) < len(b)
}
