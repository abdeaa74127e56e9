package queueing

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// KueueDeployment follows a queued Deployment's replicas, admitted one by
// one into the flavors in order while their quota lasts, into each pool
// they pile into.
func TestKueueDeployment(t *testing.T) {
	for _, tc := range []struct {
		name   string
		kind   string
		fits   []string
		pinned []check.Pinned
		want   []string
	}{
		{"every replica runs", keys.KindDeployment, []string{"a", "b"},
			[]check.Pinned{{Flavor: "a", Admitted: 2, Placed: 2}, {Flavor: "b", Admitted: 2, Placed: 2}}, nil},
		{"they pile into one pool", keys.KindDeployment, []string{"a", "b"},
			[]check.Pinned{{Flavor: "a", Admitted: 4, Placed: 2, Reasons: []string{sched.ErrReasonAntiAffinity}}},
			[]string{"tenant t: Kueue admits class c's pods one by one, each to the first flavor with quota: 4 of its 4 replicas to flavor a; then kube-scheduler places 2 of them: node(s) didn't match pod anti-affinity rules; the rest stay Pending while admitted"}},
		{"the second flavor's share", keys.KindDeployment, []string{"a", "b"},
			[]check.Pinned{{Flavor: "a", Admitted: 1, Placed: 1}, {Flavor: "b", Admitted: 3, Placed: 1, Reasons: []string{sched.ErrReasonSpread}}},
			[]string{"tenant t: Kueue admits class c's pods one by one, each to the first flavor with quota: 3 of its 4 replicas to flavor b; then kube-scheduler places 1 of them: node(s) didn't match pod topology spread constraints; the rest stay Pending while admitted"}},
		{"a flavor it does not land on", keys.KindDeployment, []string{"b"},
			[]check.Pinned{{Flavor: "a", Admitted: 4, Placed: 0}}, nil},
		{"a StatefulSet is KueueGang's", keys.KindStatefulSet, []string{"a"},
			[]check.Pinned{{Flavor: "a", Admitted: 4, Placed: 2}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := sched.Class{Name: "c", Kind: tc.kind, Pods: 4}
			var got []string
			for _, f := range KueueDeployment(pinnedAdmission(&c, tc.fits, tc.pinned...)) {
				if f.Check != IDKueueDeployment || f.Severity != check.Error || f.Tenant != "t" || f.Class != "c" {
					t.Errorf("finding %+v", f)
				}
				got = append(got, f.Message)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
