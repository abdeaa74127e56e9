package cost

import (
	"math"
	"strconv"
)

// HoursPerMonth is the month a figure is priced over: 8,760 hours a year
// over 12, as AWS's pricing calculator counts it.
const HoursPerMonth = 730

// Dollars is whole dollars with thousands separated: "$6,548".
func Dollars(f float64) string {
	s := strconv.FormatFloat(math.Abs(f), 'f', 0, 64)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if f < 0 && s != "0" {
		return "-$" + s
	}
	return "$" + s
}
