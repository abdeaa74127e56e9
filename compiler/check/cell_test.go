package check_test

import (
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/check/scheduling"
)

// rowFleet has four pools: "a" that the class's selector matches, "b" and
// "c" that it does not (b with a taint it does not tolerate), and "d"
// whose nodes' taints differ, which the index never rules out.
func rowFleet(selector string) *sched.Cluster {
	taint := []corev1.Taint{{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	mk := func(tier string, taints []corev1.Taint) sched.Node {
		return sched.Node{InstanceType: "t", Zone: "z", Node: checktest.Node(map[string]string{"tier": tier}, taints, "cpu=4,pods=10")}
	}
	p := checktest.Pod(corev1.PodSpec{NodeSelector: map[string]string{"tier": selector}, Containers: []corev1.Container{checktest.Container("cpu=1")}})
	return &sched.Cluster{
		Pools: []sched.Pool{
			{Name: "a", MaxNodes: 1, Zones: []string{"z"}, Nodes: []sched.Node{mk("x", nil)}},
			{Name: "b", MaxNodes: 1, Zones: []string{"z"}, Nodes: []sched.Node{mk("y", taint)}},
			{Name: "c", MaxNodes: 1, Zones: []string{"z"}, Nodes: []sched.Node{mk("y", nil)}},
			{Name: "d", MaxNodes: 2, Zones: []string{"z"}, Nodes: []sched.Node{mk("y", nil), mk("y", taint)}},
		},
		Classes: []sched.Class{{Name: "k", Pod: p, Info: sched.NewPodInfo(p), Pods: 1}},
	}
}

// A row keeps the evaluated cells only; every accessor gives the cell
// evaluating the pool gives, and the evaluated ones are the row's own.
func TestRowCells(t *testing.T) {
	for sel, evaluated := range map[string][]int32{"x": {0, 3}, "none": {3}} {
		cl := rowFleet(sel)
		r := check.RunCluster(cl, check.Intent{}, nil)
		w := r.Row("k")
		if w == nil || !slices.Equal(w.At, evaluated) || w.Len() != 4 {
			t.Fatalf("selector %s: row %+v, want pools %v evaluated of 4", sel, w, evaluated)
		}
		var all []sched.Cell
		for j := range cl.Pools {
			want := sched.Evaluate(&cl.Classes[0], &cl.Pools[j])
			want.Nodes = nil
			all = append(all, want)
			for name, got := range map[string]sched.Cell{"Row.Cell": w.Cell(j), "Report.Cell": *r.Cell("k", cl.Pools[j].Name)} {
				if !reflect.DeepEqual(got, want) && !(len(got.Reasons)+len(want.Reasons) == 0 && got.Fits == want.Fits) {
					t.Errorf("selector %s, pool %s: %s %+v, Evaluate %+v", sel, cl.Pools[j].Name, name, got, want)
				}
			}
			if w.Fits(j) != want.Fits || r.Fits("k", cl.Pools[j].Name) != want.Fits {
				t.Errorf("selector %s, pool %s: Fits %v, want %v", sel, cl.Pools[j].Name, w.Fits(j), want.Fits)
			}
		}
		if got := r.Cell("k", "d"); got != &w.Evaluated[len(w.Evaluated)-1] {
			t.Error("Cell must return the evaluated cell itself, so callers see one verdict")
		}
		if got, want := r.Cell("k", "b").Reasons, []string{sched.ErrReasonTaint}; !slices.Equal(got, want) {
			t.Errorf("ruled-out tainted pool: %v, want %v", got, want)
		}
		if got, want := r.Cell("k", "c").Reasons, []string{sched.ErrReasonNodeAffinity}; !slices.Equal(got, want) {
			t.Errorf("ruled-out pool: %v, want %v", got, want)
		}
		if !reflect.DeepEqual(r.AllCells(), all) {
			t.Errorf("selector %s: AllCells %+v, want %+v", sel, r.AllCells(), all)
		}
		// The per-class checks count the ruled-out pools as the full row
		// would: Lands' histogram, above all.
		c := &cl.Classes[0]
		if got, want := scheduling.Lands(c, w, nil), scheduling.Lands(c, sched.NewRow(all), nil); !reflect.DeepEqual(got, want) {
			t.Errorf("selector %s: Lands %+v, on every cell %+v", sel, got, want)
		}
	}
	r := check.RunCluster(rowFleet("x"), check.Intent{}, nil)
	if r.Cell("z", "a") != nil || r.Cell("k", "e") != nil || r.Fits("z", "a") || r.Row("z") != nil {
		t.Error("unknown names must give nil")
	}
}

// A report built by hand is indexed at its first lookup, and again when
// its names change.
func TestReportCellByHand(t *testing.T) {
	r := &check.Report{Pools: []string{"a", "b", "c"}, Classes: []string{"x", "y"}}
	n := 0
	for _, c := range r.Classes {
		var cells []sched.Cell
		for _, p := range r.Pools {
			cells = append(cells, sched.Cell{Class: c, Pool: p, Capacity: int64(n)})
			n++
		}
		r.Rows = append(r.Rows, *sched.NewRow(cells))
	}
	if got := r.Cell("y", "b"); got == nil || got.Class != "y" || got.Pool != "b" || got.Capacity != 4 || got != &r.Rows[1].Evaluated[1] {
		t.Fatalf("Cell(y, b) = %+v, want the fifth cell", got)
	}
	r.Pools = append(r.Pools, "d")
	for i, c := range r.Classes {
		r.Rows[i] = *sched.NewRow(append(slices.Clone(r.Rows[i].Evaluated), sched.Cell{Class: c, Pool: "d", Fits: true}))
	}
	if got := r.Cell("y", "d"); got == nil || got.Class != "y" || got.Pool != "d" || !r.Fits("y", "d") {
		t.Fatalf("Cell(y, d) with a fourth pool = %+v", got)
	}
}
