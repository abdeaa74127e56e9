package scheduling

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// Zone and host spreads that each hold every pod alone but not together
// (found by the kube-scheduler differential, full seed 136): pool "big"
// has one node of 4 pods in zones a and c, pool "small" two nodes of 1
// pod in b and c. A second pod on big's node in a needs every host to
// hold one first, and then zone c holds 3 against a's 1.
func TestJointSpread(t *testing.T) {
	mk := func(zone, alloc string) sched.Node {
		n := checktest.Node(map[string]string{keys.LabelZone: zone}, nil, alloc)
		return sched.Node{InstanceType: "t", Zone: zone, Node: n}
	}
	pools := []sched.Pool{
		{Name: "big", MaxNodes: 2, Zones: []string{"a", "c"}, Nodes: []sched.Node{mk("a", "cpu=4,pods=10"), mk("c", "cpu=4,pods=10")}},
		{Name: "small", MaxNodes: 4, Zones: []string{"b", "c"}, Nodes: []sched.Node{mk("b", "cpu=1,pods=10"), mk("c", "cpu=1,pods=10")}},
	}
	three := int32(3)
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"gpufleet.dev/class": "c"}}
	for _, tc := range []struct {
		name    string
		keys    []string
		pods    int32
		finding bool
	}{
		{"zone and host together refuse 7", []string{keys.LabelZone, keys.LabelHostname}, 7, true},
		{"zone and host together hold 5", []string{keys.LabelZone, keys.LabelHostname}, 5, false},
		{"zone alone holds 7", []string{keys.LabelZone}, 7, false},
		{"host alone holds 7", []string{keys.LabelHostname}, 7, false},
	} {
		var tscs []corev1.TopologySpreadConstraint
		for _, k := range tc.keys {
			tsc := corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: k, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}
			if k == keys.LabelZone {
				tsc.MinDomains = &three
			}
			tscs = append(tscs, tsc)
		}
		p := checktest.Pod(corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=1")}, TopologySpreadConstraints: tscs})
		c := &sched.Class{Name: "c", Pod: p, Info: sched.NewPodInfo(p), Pods: tc.pods}
		cells := []sched.Cell{sched.Evaluate(c, &pools[0]), sched.Evaluate(c, &pools[1])}
		got := PodTopologySpread(c, sched.NewRow(cells), pools)
		if (len(got) > 0) != tc.finding {
			t.Errorf("%s: findings %v, want a finding %v", tc.name, got, tc.finding)
		}
	}
}
