package sched

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPlaceSpread(t *testing.T) {
	two := int32(2)
	four := int32(4)
	for _, tc := range []struct {
		name       string
		pods       int64
		domains    []int64 // capacity of each domain; 0 matches but cannot take pods
		maxSkew    int32
		minDomains *int32
		placed     int64
		ok         bool
	}{
		{"three zones, three pods", 3, []int64{9, 9, 9}, 1, nil, 3, true},
		{"one open zone, maxSkew 1", 3, []int64{9}, 1, nil, 3, true},
		{"a matched zone it cannot enter caps the others at maxSkew", 3, []int64{9, 9, 0}, 1, nil, 2, false},
		{"maxSkew 2 lets more in", 4, []int64{9, 9, 0}, 2, nil, 4, true},
		{"capacity of a domain", 3, []int64{1, 1}, 5, nil, 2, false},
		{"minDomains above the domains makes the minimum zero", 3, []int64{9, 9}, 1, &four, 2, false},
		{"minDomains met", 4, []int64{9, 9}, 1, &two, 4, true},
	} {
		tsc := corev1.TopologySpreadConstraint{MaxSkew: tc.maxSkew, MinDomains: tc.minDomains}
		var ds []domain
		for i, capacity := range tc.domains {
			d := domain{name: string(rune('a' + i))}
			if capacity > 0 {
				d.sources = []*source{{left: capacity}}
			}
			ds = append(ds, d)
		}
		placed, ok := placeSpread(tc.pods, ds, tsc)
		if placed != tc.placed || ok != tc.ok {
			t.Errorf("%s: placed %d ok %v, want %d %v", tc.name, placed, ok, tc.placed, tc.ok)
		}
	}
}

// A node group's max size is balanced across its zones, the remainder to
// the first zones; a zone that gets no node is not a domain.
func TestNodesInZone(t *testing.T) {
	p := Pool{MaxNodes: 4, Zones: []string{"a", "b", "c"}}
	for zone, want := range map[string]int64{"a": 2, "b": 1, "c": 1, "x": 0} {
		if got := p.NodesInZone(zone); got != want {
			t.Errorf("NodesInZone(%s) = %d, want %d", zone, got, want)
		}
	}
	one := Pool{MaxNodes: 1, Zones: []string{"a", "b"}}
	if one.NodesInZone("b") != 0 {
		t.Error("one node in two zones: the second gets none")
	}
}

// A selector with matchLabelKeys merged in still selects the pod itself.
func TestSelectsSelf(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"gpufleet.dev/class": "c", "pod-template-hash": "a"}}}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"gpufleet.dev/class": "c"}}
	if !selectsSelf(sel, []string{"pod-template-hash", "absent"}, pod) {
		t.Error("a pod's merged selector must select the pod itself")
	}
	if selectsSelf(&metav1.LabelSelector{}, []string{"pod-template-hash"}, pod) {
		t.Error("an empty selector selects no pod, matchLabelKeys or not")
	}
}
