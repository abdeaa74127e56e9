// Package sat is int64 arithmetic that saturates instead of wrapping.
package sat

import "math"

// Add is a+b, or the bound it passes.
func Add(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	if b < 0 && a < math.MinInt64-b {
		return math.MinInt64
	}
	return a + b
}

// Mul is a*b for non-negative a and b, or MaxInt64 where that
// overflows: a need that large exceeds any quota, as it should.
func Mul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
