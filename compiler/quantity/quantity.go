// Package quantity parses Kubernetes quantities from untrusted text: a
// spec, a live cluster's files, a committed tree. resource.ParseQuantity
// computes 10 to the power of a decimal exponent before any bound can
// apply ("1e1000000000" runs for minutes), so Parse refuses, by their text
// alone, the quantities no bound gpufleet holds quantities to could accept,
// and leaves everything else to Kubernetes' own parser.
package quantity

import (
	"errors"

	"k8s.io/apimachinery/pkg/api/resource"
)

// MaxDigits and MaxExponent bound a quantity's text. Every bound on a
// quantity is below 10^16 (1Pi of memory, 1M cores) and its smallest unit is
// 10^-9, so it needs at most 25 significant digits; with at most 64
// digits, an exponent past ±100 makes a value above 10^36 or below 10^-36,
// one the bounds refuse or Kubernetes rounds up to its nano-unit.
const (
	MaxDigits   = 64
	MaxExponent = 100
)

var (
	errDigits   = errors.New("it has more than 64 digits, which no quantity within gpufleet's bounds needs (Kubernetes' parser takes time growing faster than their number)")
	errExponent = errors.New("its exponent is beyond ±100, which no quantity within gpufleet's bounds needs (Kubernetes' parser computes 10 to that power: minutes for 1e1000000000)")
)

// Parse is resource.ParseQuantity for text that may be hostile: it refuses
// what Check refuses, and otherwise returns what ParseQuantity does.
func Parse(s string) (resource.Quantity, error) {
	if err := Check(s); err != nil {
		return resource.Quantity{}, err
	}
	return resource.ParseQuantity(s)
}

// Check refuses s if it has more than MaxDigits digits before its suffix,
// or a decimal exponent ("e" or "E" and signed digits, which ParseQuantity
// reads as an int64 and truncates to int32) beyond MaxExponent. It reads
// s as ParseQuantity does: a sign, digits and a point, then the suffix.
func Check[S ~string | ~[]byte](s S) error {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && (isDigit(s[i]) || s[i] == '.'); i++ {
		if s[i] != '.' {
			digits++
		}
	}
	if digits > MaxDigits {
		return errDigits
	}
	if i+1 >= len(s) || s[i] != 'e' && s[i] != 'E' {
		return nil
	}
	exp := s[i+1:]
	if exp[0] == '+' || exp[0] == '-' {
		exp = exp[1:]
	}
	for len(exp) > 0 && exp[0] == '0' {
		exp = exp[1:]
	}
	n := 0
	for j := 0; j < len(exp); j++ {
		if !isDigit(exp[j]) {
			return nil // not an exponent: ParseQuantity refuses the suffix
		}
		if n = n*10 + int(exp[j]-'0'); n > MaxExponent {
			return errExponent
		}
	}
	return nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
