package scheduling

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// Holds is the count behind each placement finding: below the class's pods
// exactly when one of Lands, Gang, Capacity, InterPodAffinity or
// PodTopologySpread fails it. spreadFleet's class fits pool "open" (4 nodes
// of 8 pods in zone a) and matches, untolerated, "closed" (zones b and c).
func TestHolds(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"gpufleet.dev/class": "c"}}
	anti := func(key string) *corev1.PodAntiAffinity {
		return &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: key, LabelSelector: sel}}}
	}
	hostSpread := corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: keys.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}
	for _, tc := range []struct {
		name  string
		pods  int32
		edit  func(c *sched.Class, cells []sched.Cell) []sched.Cell
		holds int64
		finds bool
		// why is HoldsWhy's reasons for the next pod, joined.
		why string
	}{
		// Zones b and c count for the spread and hold none: zone a takes one.
		{"zone spread", 5, nil, 1, true, sched.ErrReasonSpread},
		{"one pod", 1, nil, 1, false, ""},
		{"capacity", 40, noSpread, 32, true, "Insufficient cpu"},
		{"all fit", 32, noSpread, 32, false, ""},
		// A Job that runs in waves needs one pod at a time.
		{"a Job in waves", 40, func(c *sched.Class, cells []sched.Cell) []sched.Cell {
			c.Kind = keys.KindJob
			return noSpread(c, cells)
		}, 32, false, "Insufficient cpu"},
		{"a gang", 40, func(c *sched.Class, cells []sched.Cell) []sched.Cell {
			c.Kind, c.Gang = keys.KindJob, true
			return noSpread(c, cells)
		}, 32, true, "Insufficient cpu"},
		{"anti-affinity on hostname", 8, func(c *sched.Class, cells []sched.Cell) []sched.Cell {
			c.Pod.Spec.Affinity.PodAntiAffinity = anti(keys.LabelHostname)
			return noSpread(c, cells)
		}, 4, true, sched.ErrReasonAntiAffinity},
		{"anti-affinity on zone", 3, func(c *sched.Class, cells []sched.Cell) []sched.Cell {
			c.Pod.Spec.Affinity.PodAntiAffinity = anti(keys.LabelZone)
			return noSpread(c, cells)
		}, 1, true, sched.ErrReasonAntiAffinity},
		// "closed" matches node affinity: its 4 hosts hold none, so each
		// of open's 4 takes one.
		{"host spread", 6, func(c *sched.Class, cells []sched.Cell) []sched.Cell {
			c.Pod.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{hostSpread}
			return cells
		}, 4, true, sched.ErrReasonSpread},
		{"lands nowhere", 3, func(c *sched.Class, cells []sched.Cell) []sched.Cell { return cells[:1] }, 0, true, sched.ErrReasonTaint},
	} {
		c, cells, pools := spreadFleet(tc.pods, nil)
		if tc.edit != nil {
			cells = tc.edit(c, cells)
			for i := range cells {
				cells[i] = sched.Evaluate(c, &pools[i])
			}
		}
		w := sched.NewRow(cells)
		got, why := sched.HoldsWhy(c, w, pools[:len(cells)])
		if strings.Join(why, ", ") != tc.why {
			t.Errorf("%s: reasons %q, want %q", tc.name, why, tc.why)
		}
		var found []check.Finding
		for _, check := range []func(*sched.Class, *sched.Row, []sched.Pool) []check.Finding{Lands, Gang, Capacity, InterPodAffinity, PodTopologySpread} {
			found = append(found, check(c, w, pools[:len(cells)])...)
		}
		if got != tc.holds || (len(found) > 0) != tc.finds || (got < int64(c.Need())) != tc.finds {
			t.Errorf("%s: Holds %d with findings %v, want %d and findings %v", tc.name, got, found, tc.holds, tc.finds)
		}
	}
}

func noSpread(c *sched.Class, cells []sched.Cell) []sched.Cell {
	c.Pod.Spec.TopologySpreadConstraints = nil
	return cells
}

// With a zone and a host spread together, Holds is what all of them place
// at once (TestJointSpread's fleet): 7 pods need more than the 5 they hold.
func TestHoldsJoint(t *testing.T) {
	mk := func(zone, alloc string) sched.Node {
		return sched.Node{InstanceType: "t", Zone: zone, Node: checktest.Node(map[string]string{keys.LabelZone: zone}, nil, alloc)}
	}
	pools := []sched.Pool{
		{Name: "big", MaxNodes: 2, Zones: []string{"a", "c"}, Nodes: []sched.Node{mk("a", "cpu=4,pods=10"), mk("c", "cpu=4,pods=10")}},
		{Name: "small", MaxNodes: 4, Zones: []string{"b", "c"}, Nodes: []sched.Node{mk("b", "cpu=1,pods=10"), mk("c", "cpu=1,pods=10")}},
	}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"gpufleet.dev/class": "c"}}
	three := int32(3)
	p := checktest.Pod(corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=1")}, TopologySpreadConstraints: []corev1.TopologySpreadConstraint{
		{MaxSkew: 1, TopologyKey: keys.LabelZone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel, MinDomains: &three},
		{MaxSkew: 1, TopologyKey: keys.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel},
	}})
	c := &sched.Class{Name: "c", Pod: p, Info: sched.NewPodInfo(p), Pods: 7}
	cells := []sched.Cell{sched.Evaluate(c, &pools[0]), sched.Evaluate(c, &pools[1])}
	if got := sched.Holds(c, sched.NewRow(cells), pools); got != 5 {
		t.Errorf("Holds %d, want 5", got)
	}
}
