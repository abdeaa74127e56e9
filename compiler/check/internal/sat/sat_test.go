package sat

import (
	"math"
	"testing"
)

// Mul saturates instead of wrapping, so a huge need never looks small.
func TestMul(t *testing.T) {
	for _, tc := range []struct{ a, b, want int64 }{
		{0, math.MaxInt64, 0},
		{3, 4, 12},
		{1 << 40, 1 << 22, 1 << 62},
		{1 << 40, 1 << 23, math.MaxInt64},
		{math.MaxInt64, 2, math.MaxInt64},
		{1_125_899_906_842_624_000, 64, math.MaxInt64}, // 1Pi in milli-units, a gang of 64
	} {
		if got := Mul(tc.a, tc.b); got != tc.want {
			t.Errorf("Mul(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
