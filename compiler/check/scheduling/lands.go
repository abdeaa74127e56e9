package scheduling

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDLands check.ID = "Lands"

// Lands fails a class that no pool can host, with a FailedScheduling-style
// summary of why each pool refused it: the evaluated pools' reasons, and
// the ruled-out ones counted by theirs.
func Lands(c *sched.Class, w *sched.Row, _ []sched.Pool) []check.Finding {
	counts := map[string]int{}
	for _, cell := range w.Evaluated {
		if cell.Fits {
			return nil
		}
		for _, r := range cell.Reasons {
			counts[r]++
		}
	}
	w.CountRuledOut(counts)
	return []check.Finding{{
		Severity: check.Error, Check: IDLands, Class: c.Name,
		Message: fmt.Sprintf("0/%d pools can host class %s: %s.", w.Len(), c.Name, histogram(counts)),
	}}
}
