package check

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// Within a ClusterQueue, Kueue v0.19.2 lets a workload preempt another as
// SatisfiesPreemptionPolicy says (pkg/scheduler/preemption/common), and
// only one that may hold a flavor it needs: "elsewhere" holds flavor b,
// which none of the others needs.
func TestPreempts(t *testing.T) {
	priorities := map[string]int32{"high": 100, "low": 10}
	for _, tc := range []struct {
		policy string
		want   []string // high's, low's, peer's
	}{
		{kueue.PreemptionLowerPriority, []string{"low", "", "low"}},
		// An equal priority may be preempted if newer: either may be.
		{kueue.PreemptionLowerOrNewerEqualPriority, []string{"low,peer", "", "high,low"}},
		{kueue.PreemptionNever, []string{"", "", ""}},
		{"", []string{"", "", ""}},
	} {
		class := func(name, pc string, flavors ...string) Queued {
			return Queued{Class: &sched.Class{Name: name, PriorityClass: pc}, Candidates: flavors}
		}
		cq := &kueue.ClusterQueue{}
		if tc.policy != "" {
			cq.Spec.Preemption = &kueue.Preemption{WithinClusterQueue: tc.policy}
		}
		a := &Admission{CQ: cq, Model: &kueuemodel.Model{Priorities: priorities}, Classes: []Queued{
			class("high", "high", "a"),
			class("low", "low", "a"),
			class("peer", "high", "a"),
			class("elsewhere", "low", "b"),
		}}
		for i, want := range tc.want {
			if got := strings.Join(a.preempts(i), ","); got != want {
				t.Errorf("%s: %s preempts %q, want %q", tc.policy, a.Classes[i].Class.Name, got, want)
			}
		}
	}
}
