package resourcequota

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// quotaCluster is two 8-GPU pools of 2 nodes at max size, a and b, and
// classes: gpu (1 GPU, lands on a only), both (lands on a and b), cpu (no
// GPU, lands on both), mig (a MIG slice, lands on a), nowhere (1 GPU,
// lands on neither).
func quotaCluster() (*sched.Cluster, []sched.Row) {
	node := sched.Node{Node: checktest.Node(nil, nil, "cpu=96,nvidia.com/gpu=8")}
	cl := &sched.Cluster{Pools: []sched.Pool{
		{Name: "a", MaxNodes: 2, Nodes: []sched.Node{node}},
		{Name: "b", MaxNodes: 2, Nodes: []sched.Node{node}},
	}}
	var rows []sched.Row
	for _, c := range []struct {
		name, req string
		fits      [2]bool
	}{
		{"gpu", "nvidia.com/gpu=1", [2]bool{true, false}},
		{"both", "nvidia.com/gpu=1", [2]bool{true, true}},
		{"cpu", "cpu=1", [2]bool{true, true}},
		{"mig", "nvidia.com/mig-1g.10gb=1", [2]bool{true, false}},
		{"nowhere", "nvidia.com/gpu=1", [2]bool{false, false}},
	} {
		p := checktest.Pod(corev1.PodSpec{Containers: []corev1.Container{checktest.Container(c.req)}})
		cl.Classes = append(cl.Classes, sched.Class{Name: c.name, Pod: p, Info: sched.NewPodInfo(p), Pods: 1})
		rows = append(rows, sched.Row{
			Evaluated: []sched.Cell{{Class: c.name, Pool: "a", Fits: c.fits[0]}, {Class: c.name, Pool: "b", Fits: c.fits[1]}},
			At:        []int32{0, 1},
		})
	}
	return cl, rows
}

type quotaCase struct {
	name    string
	tenants map[string][]string // tenant → classes; quota by the tenant's name, below
	gpus    map[string]int64
	want    []string
}

var quotaCases = []quotaCase{
	{"quota the pools hold", map[string][]string{"ml": {"gpu"}}, map[string]int64{"ml": 16}, nil},
	{"quota over the class's pool, under the fleet's", map[string][]string{"ml": {"gpu"}}, map[string]int64{"ml": 24}, []string{
		"tenant ml's quota of 24 nvidia.com/gpu exceeds the 16 its classes can reach (pools a at max size): pods admitted beyond them stay Pending (Insufficient nvidia.com/gpu); lower the quota or raise the pools' max size",
	}},
	{"a class on both pools reaches both", map[string][]string{"ml": {"gpu", "both"}}, map[string]int64{"ml": 32}, nil},
	{"over the fleet too: the tenant's is the root", map[string][]string{"ml": {"both"}}, map[string]int64{"ml": 40}, []string{
		"tenant ml's quota of 40 nvidia.com/gpu exceeds the 32 its classes can reach (pools a, b at max size): pods admitted beyond them stay Pending (Insufficient nvidia.com/gpu); lower the quota or raise the pools' max size",
	}},
	{"a class that lands nowhere is Lands'", map[string][]string{"ml": {"gpu", "nowhere"}}, map[string]int64{"ml": 24}, nil},
	{"but counts toward the fleet's", map[string][]string{"ml": {"nowhere"}, "lab": {"both"}}, map[string]int64{"ml": 24, "lab": 16}, []string{
		"the tenants' quotas total 40 nvidia.com/gpu, over the fleet's 32 at max size (1.25 times): pods admitted beyond them stay Pending (Insufficient nvidia.com/gpu); lower the quotas or raise the pools' max size",
	}},
	{"two tenants within their pools, over the fleet", map[string][]string{"ml": {"both"}, "lab": {"both"}}, map[string]int64{"ml": 20, "lab": 20}, []string{
		"the tenants' quotas total 40 nvidia.com/gpu, over the fleet's 32 at max size (1.25 times): pods admitted beyond them stay Pending (Insufficient nvidia.com/gpu); lower the quotas or raise the pools' max size",
	}},
	{"GPU quota for CPU classes", map[string][]string{"web": {"cpu"}}, map[string]int64{"web": 8}, []string{
		"tenant web's quota of 8 nvidia.com/gpu exceeds the 0 its classes can reach (no pool at max size): pods admitted beyond them stay Pending (Insufficient nvidia.com/gpu); lower the quota or raise the pools' max size",
	}},
	{"MIG slices are not counted", map[string][]string{"ml": {"mig"}}, map[string]int64{"ml": 64}, nil},
	{"nor is the fleet then", map[string][]string{"ml": {"mig"}, "lab": {"both"}}, map[string]int64{"ml": 64, "lab": 8}, nil},
}

// A running cluster's nodes are what the autoscalers have launched so
// far: check --nodes leaves quota against them alone.
func TestQuotaOverCapacityLive(t *testing.T) {
	cl, rows := quotaCluster()
	cl.Pools[0].Live = true
	in := check.Intent{Tenants: []check.TenantIntent{{Name: "ml", Classes: []string{"gpu"}, Nominal: map[string]int64{"nvidia.com/gpu": 64000}}}}
	if f := QuotaOverCapacity(cl, rows, in); len(f) != 0 {
		t.Errorf("live nodes: %v", f)
	}
}

func runQuotaCases(t *testing.T, cases []quotaCase) (failed []string) {
	t.Helper()
	for _, tc := range cases {
		cl, rows := quotaCluster()
		var in check.Intent
		for _, name := range []string{"lab", "ml", "web"} {
			if cs, ok := tc.tenants[name]; ok {
				in.Tenants = append(in.Tenants, check.TenantIntent{Name: name, Classes: cs, Nominal: map[string]int64{"nvidia.com/gpu": tc.gpus[name] * 1000}})
			}
		}
		var got []string
		for _, f := range QuotaOverCapacity(cl, rows, in) {
			if f.Severity != check.Warning || f.Check != IDQuotaOverCapacity {
				t.Errorf("%s: finding %+v", tc.name, f)
			}
			got = append(got, f.Message)
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			failed = append(failed, tc.name+":\n got "+strings.Join(got, "\n ")+"\nwant "+strings.Join(tc.want, "\n "))
		}
	}
	return failed
}

// A tenant's quota over the GPUs of the pools its classes land on is
// warned of, and the tenants' quotas over the fleet's.
func TestQuotaOverCapacity(t *testing.T) {
	for _, f := range runQuotaCases(t, quotaCases) {
		t.Error(f)
	}
}

// The table catches a check that credits a tenant with every pool its
// classes were evaluated on, fitting or not.
func TestQuotaOverCapacityCatches(t *testing.T) {
	defer func(r func(sched.Cell) bool) { reaches = r }(reaches)
	reaches = func(sched.Cell) bool { return true }
	failed := runQuotaCases(t, quotaCases)
	if len(failed) == 0 || !strings.HasPrefix(failed[0], "quota over the class's pool, under the fleet's") {
		t.Errorf("crediting every pool went unnoticed: %q", failed)
	}
}
