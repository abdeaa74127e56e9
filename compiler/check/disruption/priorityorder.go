package disruption

import (
	"fmt"
	"sort"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDPriorityOrder check.ID = "PriorityOrder"

// PriorityOrder warns when a batch (Job) class that may preempt outranks a
// critical serving class (a Deployment or StatefulSet whose own priority
// preempts): training would then evict inference to make room. Serving
// classes with preemption Never, such as development, are fair game.
func PriorityOrder(_ *sched.Cluster, _ []sched.Row, in check.Intent) []check.Finding {
	var names []string
	for n := range in.Priorities {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []check.Finding
	for _, batch := range names {
		b := in.Priorities[batch]
		if !b.Batch || !b.Preempts {
			continue
		}
		for _, serving := range names {
			s := in.Priorities[serving]
			if s.Batch || !s.Preempts || s.Value >= b.Value {
				continue
			}
			out = append(out, check.Finding{Severity: check.Warning, Check: IDPriorityOrder, Class: batch,
				Message: fmt.Sprintf("batch class %s (priority %d) can preempt critical serving class %s (priority %d)", batch, b.Value, serving, s.Value)})
		}
	}
	return out
}
