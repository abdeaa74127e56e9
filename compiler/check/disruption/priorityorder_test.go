package disruption

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check"
)

func TestPriorityOrder(t *testing.T) {
	in := check.Intent{Priorities: map[string]check.PriorityIntent{
		"train": {Value: 100, Preempts: true, Batch: true},
		"infer": {Value: 10, Preempts: true},
		"dev":   {Value: 1, Preempts: false},
	}}
	f := PriorityOrder(nil, nil, in)
	if len(f) != 1 || f[0].Class != "train" || !strings.Contains(f[0].Message, "infer") {
		t.Fatalf("got %v, want one warning that train outranks infer", f)
	}
}
