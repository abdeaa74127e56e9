package queueing

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// pinnedAdmission is tenant t's admission of class c, which lands on the
// pools fits names, with what kube-scheduler places in each flavor.
func pinnedAdmission(c *sched.Class, fits []string, pinned ...check.Pinned) *check.Admission {
	var pools []string
	var cells []sched.Cell
	for _, p := range []string{"a", "b", "c"} {
		pools = append(pools, p)
		cells = append(cells, sched.Cell{Class: c.Name, Pool: p, Fits: strings.Contains(strings.Join(fits, ","), p)})
	}
	r := &check.Report{Pools: pools, Classes: []string{c.Name}, Rows: []sched.Row{*sched.NewRow(cells)}}
	return &check.Admission{Queue: kueuemodel.Queue{Tenant: "t", ClusterQueue: "t"}, Report: r,
		Classes: []check.Queued{{Class: c, Pods: kueuemodel.UnitPods(c), Pinned: pinned}}}
}

// KueueGang follows a Job's PodSet and a StatefulSet's pod group into each
// flavor Kueue may pin it to: all its pods must run there, but one of a
// Job that runs in waves.
func TestKueueGang(t *testing.T) {
	anti := []string{sched.ErrReasonAntiAffinity}
	for _, tc := range []struct {
		name   string
		class  sched.Class
		fits   []string
		pinned []check.Pinned
		want   []string
	}{
		{"the gang runs whole", sched.Class{Kind: keys.KindJob, Gang: true, Pods: 4}, []string{"a"},
			[]check.Pinned{{Flavor: "a", Admitted: 4, Placed: 4}}, nil},
		{"anti-affinity strands half the gang", sched.Class{Kind: keys.KindJob, Gang: true, Pods: 4}, []string{"a", "b"},
			[]check.Pinned{{Flavor: "a", Admitted: 4, Placed: 2, Reasons: anti}, {Flavor: "b", Admitted: 4, Placed: 4}},
			[]string{"tenant t: Kueue admits class c's gang of 4 pods to flavor a as one workload; then kube-scheduler places 2 of its 4 pods: node(s) didn't match pod anti-affinity rules; the rest stay Pending, holding the quota: it runs in flavor(s) b"}},
		{"a StatefulSet's pod group", sched.Class{Kind: keys.KindStatefulSet, Pods: 3}, []string{"a"},
			[]check.Pinned{{Flavor: "a", Admitted: 3, Placed: 2, Reasons: []string{sched.ErrReasonSpread}}},
			[]string{"tenant t: Kueue admits class c's StatefulSet of 3 replicas (one pod group) to flavor a as one workload; then kube-scheduler places 2 of its 3 pods: node(s) didn't match pod topology spread constraints; the rest stay Pending, holding the quota: no flavor it may be admitted to runs it"}},
		{"a Job in waves needs one pod", sched.Class{Kind: keys.KindJob, Pods: 16}, []string{"a"},
			[]check.Pinned{{Flavor: "a", Admitted: 16, Placed: 1}}, nil},
		{"a Job in waves where none runs", sched.Class{Kind: keys.KindJob, Pods: 16}, []string{"a"},
			[]check.Pinned{{Flavor: "a", Admitted: 16, Placed: 0, Reasons: []string{sched.ErrReasonSpread}}},
			[]string{"tenant t: Kueue admits class c's Job of 16 parallel pods to flavor a as one workload; then kube-scheduler places 0 of its 16 pods: node(s) didn't match pod topology spread constraints; none of them runs, while the workload holds the quota: no flavor it may be admitted to runs it"}},
		// Where the class does not land at all, KueueFlavor and KueueOrder speak.
		{"a flavor it does not land on", sched.Class{Kind: keys.KindJob, Gang: true, Pods: 4}, []string{"b"},
			[]check.Pinned{{Flavor: "a", Admitted: 4, Placed: 0}}, nil},
		{"a Deployment is KueueDeployment's", sched.Class{Kind: keys.KindDeployment, Pods: 4}, []string{"a"},
			[]check.Pinned{{Flavor: "a", Admitted: 4, Placed: 2}}, nil},
		{"an ML kind's roles are KueueRoles'", sched.Class{Kind: keys.KindJobSet, Pods: 3, PodSets: []sched.PodSet{{Name: "trainer", Row: "c", Pods: 3}}}, []string{"a"},
			[]check.Pinned{{Flavor: "a", Admitted: 3, Placed: 2}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.class
			c.Name = "c"
			var got []string
			for _, f := range KueueGang(pinnedAdmission(&c, tc.fits, tc.pinned...)) {
				if f.Check != IDKueueGang || f.Severity != check.Error || f.Tenant != "t" || f.Class != "c" {
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
