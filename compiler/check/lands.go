package check

import "fmt"

// Lands fails a class that no pool can host, with a FailedScheduling-style
// summary of why each pool refused it.
func Lands(c *Class, cells []Cell) []Finding {
	counts := map[string]int{}
	for _, cell := range cells {
		if cell.Fits {
			return nil
		}
		for _, r := range cell.Reasons {
			counts[r]++
		}
	}
	return []Finding{{
		Severity: Error, Check: IDLands, Class: c.Name,
		Message: fmt.Sprintf("0/%d pools can host class %s: %s.", len(cells), c.Name, histogram(counts)),
	}}
}
