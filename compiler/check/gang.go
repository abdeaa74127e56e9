package check

import (
	"fmt"
	"strings"
)

// Gang requires all of a class's pods to fit at once on the pools it can
// land on, at their max size: a Job's gang must start together, and a
// Deployment's replicas that cannot all run stay Pending for ever.
func Gang(c *Class, cells []Cell) []Finding {
	var total int64
	var parts []string
	fitting := 0
	for _, cell := range cells {
		if !cell.Fits {
			continue
		}
		fitting++
		total += cell.Capacity
		parts = append(parts, fmt.Sprintf("%s %d", cell.Pool, cell.Capacity))
	}
	if fitting == 0 || int64(c.Pods) <= total {
		return nil
	}
	what := fmt.Sprintf("%d replicas cannot all run", c.Pods)
	check := "Capacity"
	if c.Gang {
		what = fmt.Sprintf("a gang of %d pods cannot run at once", c.Pods)
		check = "Gang"
	}
	return []Finding{{
		Severity: Error, Check: check, Class: c.Name,
		Message: fmt.Sprintf("%s: the pools that fit hold at most %d at max size (%s)", what, total, strings.Join(parts, ", ")),
	}}
}
