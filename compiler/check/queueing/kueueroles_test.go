package queueing

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// KueueRoles: an ML kind's pod sets are admitted together, each to a
// flavor whose pool its role lands on.
func TestKueueRoles(t *testing.T) {
	rayCluster := sched.Class{Name: "ray", Kind: keys.KindRayCluster, PodSets: []sched.PodSet{
		{Name: "head", Row: "ray/head", Pods: 1}, {Name: "gpu", Row: "ray", Pods: 2}}}
	for _, tc := range []struct {
		name     string
		assigned []kueuemodel.Assignment
		fits     map[string][]string // row: pools it lands on
		pinned   []check.Pinned
		want     []string
	}{
		{"head on cpu, workers on gpu", []kueuemodel.Assignment{flavor("cpu"), flavor("gpu")},
			map[string][]string{"ray/head": {"cpu"}, "ray": {"gpu"}}, []check.Pinned{{Flavor: "cpu", Admitted: 1, Placed: 1}, {Flavor: "gpu", Admitted: 2, Placed: 2}}, nil},
		{"one worker placed of two", []kueuemodel.Assignment{flavor("cpu"), flavor("gpu")},
			map[string][]string{"ray/head": {"cpu"}, "ray": {"gpu"}},
			[]check.Pinned{{Flavor: "cpu", Admitted: 1, Placed: 1}, {Flavor: "gpu", Admitted: 2, Placed: 1, Reasons: []string{"1 Insufficient nvidia.com/gpu"}}},
			[]string{"tenant t: Kueue admits class ray's RayCluster whole, pod set gpu to flavor gpu; then kube-scheduler places 1 of its 2 pods: 1 Insufficient nvidia.com/gpu; the rest stay Pending, holding the quota"}},
		{"the head assigned the GPU pool's flavor", []kueuemodel.Assignment{flavor("gpu"), flavor("gpu")},
			map[string][]string{"ray/head": {"cpu"}, "ray": {"gpu"}}, nil,
			[]string{"tenant t: Kueue assigns pod set head of class ray (1 pods) flavor gpu, whose pool its pods do not land on: they stay Pending while the RayCluster holds the quota"}},
		{"the workers find no quota", []kueuemodel.Assignment{flavor("cpu"), {Message: "couldn't assign flavors to pod set gpu: insufficient quota"}},
			map[string][]string{"ray/head": {"cpu"}, "ray": {"gpu"}}, nil,
			[]string{"tenant t: Kueue cannot admit a RayCluster of class ray, whose 2 pod sets it admits together: couldn't assign flavors to pod set gpu: insufficient quota"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := rayCluster
			pools := []string{"cpu", "gpu"}
			r := &check.Report{Pools: pools}
			for _, row := range []string{"ray", "ray/head"} {
				var cells []sched.Cell
				for _, p := range pools {
					cells = append(cells, sched.Cell{Class: row, Pool: p, Fits: strings.Contains(strings.Join(tc.fits[row], ","), p)})
				}
				r.Classes = append(r.Classes, row)
				r.Rows = append(r.Rows, *sched.NewRow(cells))
			}
			a := &check.Admission{Queue: kueuemodel.Queue{Tenant: "t", ClusterQueue: "t"}, Report: r,
				Classes: []check.Queued{{Class: &c, PodSets: tc.assigned, RolePinned: tc.pinned}}}
			var got []string
			for _, f := range KueueRoles(a) {
				if f.Check != IDKueueRoles || f.Severity != check.Error || f.Class != "ray" {
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

// KueueRoles on a TrainJob: its one pod set is its runtime's trainer
// job, named as the runtime names it.
func TestKueueRolesTrainJob(t *testing.T) {
	c := sched.Class{Name: "tj", Kind: keys.KindTrainJob, PodSets: []sched.PodSet{{Name: "node", Row: "tj", Pods: 4}}}
	r := &check.Report{Pools: []string{"gpu"}, Classes: []string{"tj"}, Rows: []sched.Row{*sched.NewRow([]sched.Cell{{Class: "tj", Pool: "gpu", Fits: true}})}}
	for _, tc := range []struct {
		assigned kueuemodel.Assignment
		pinned   []check.Pinned
		want     string
	}{
		{flavor("gpu"), []check.Pinned{{Flavor: "gpu", Admitted: 4, Placed: 4}}, ""},
		{kueuemodel.Assignment{Message: "couldn't assign flavors to pod set node: insufficient quota"}, nil,
			"tenant t: Kueue cannot admit a TrainJob of class tj, whose one pod set node it admits whole: couldn't assign flavors to pod set node: insufficient quota"},
		{flavor("gpu"), []check.Pinned{{Flavor: "gpu", Admitted: 4, Placed: 3}},
			"tenant t: Kueue admits class tj's TrainJob whole, pod set node to flavor gpu; then kube-scheduler places 3 of its 4 pods; the rest stay Pending, holding the quota"},
	} {
		a := &check.Admission{Queue: kueuemodel.Queue{Tenant: "t", ClusterQueue: "t"}, Report: r,
			Classes: []check.Queued{{Class: &c, PodSets: []kueuemodel.Assignment{tc.assigned}, RolePinned: tc.pinned}}}
		var got []string
		for _, f := range KueueRoles(a) {
			got = append(got, f.Message)
		}
		if strings.Join(got, "\n") != tc.want {
			t.Errorf("findings %q, want %q", got, tc.want)
		}
	}
}

func flavor(f string) kueuemodel.Assignment {
	return kueuemodel.Assignment{Flavors: map[corev1.ResourceName]string{corev1.ResourceCPU: f}}
}
