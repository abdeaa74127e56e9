package scheduling

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDGang check.ID = "Gang"

// Gang requires all of a gang Job's pods to fit at once on the pools it can
// land on, at their max size: the gang must start together. The finding
// ends with what kube-scheduler says of the pods left over: the reasons a
// full node refuses one more. A queued gang is judged where Kueue pins it
// (KueueGang), not across pools.
func Gang(c *sched.Class, w *sched.Row, pools []sched.Pool) []check.Finding {
	if !c.Gang || c.Queued {
		return nil
	}
	return shortfall(c, w, pools, IDGang, "a gang of %d pods cannot run at once")
}

// shortfall is the finding of check id when the class's pods do not all fit at
// once on the pools it lands on; what formats their count.
func shortfall(c *sched.Class, w *sched.Row, pools []sched.Pool, id check.ID, what string) []check.Finding {
	var total int64
	var parts, reasons []string
	fitting := 0
	for k, cell := range w.Evaluated {
		if !cell.Fits {
			continue
		}
		fitting++
		total += cell.Capacity
		parts = append(parts, fmt.Sprintf("%s %d", cell.Pool, cell.Capacity))
		for _, r := range sched.FullNodeReasons(c.Info, &pools[w.At[k]], cell.Type) {
			if !slices.Contains(reasons, r) {
				reasons = append(reasons, r)
			}
		}
	}
	if fitting == 0 || int64(c.Pods) <= total {
		return nil
	}
	slices.Sort(reasons)
	msg := fmt.Sprintf(what+": the pools that fit hold at most %d at max size (%s)", c.Pods, total, strings.Join(parts, ", "))
	if len(reasons) > 0 {
		msg += ": " + strings.Join(reasons, ", ")
	}
	return []check.Finding{{Severity: check.Error, Check: id, Class: c.Name, Message: msg}}
}
