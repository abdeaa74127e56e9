package check

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/keys"
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

// spreadFleet: class c fits pool "open" (zone a) but only matches, without
// tolerating, pool "closed" (zones b, c).
func spreadFleet(pods int32, policy *corev1.NodeInclusionPolicy) (*Class, []Cell, []Pool) {
	mk := func(pool, zone string, taints []corev1.Taint) Node {
		n := node(map[string]string{"gpu": "H100", keys.LabelZone: zone, keys.LabelHostname: pool + zone}, taints, "cpu=8,pods=10")
		return Node{InstanceType: "t", Zone: zone, Node: n}
	}
	taint := []corev1.Taint{{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}}
	pools := []Pool{
		{Name: "closed", MaxNodes: 4, Zones: []string{"b", "c"}, Nodes: []Node{mk("closed", "b", taint), mk("closed", "c", taint)}},
		{Name: "open", MaxNodes: 4, Zones: []string{"a"}, Nodes: []Node{mk("open", "a", nil)}},
	}
	p := pod(corev1.PodSpec{
		Affinity:   required([]corev1.NodeSelectorRequirement{r("gpu", corev1.NodeSelectorOpIn, "H100")}),
		Containers: []corev1.Container{container("cpu=1")},
		TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: keys.LabelZone, WhenUnsatisfiable: corev1.DoNotSchedule, NodeTaintsPolicy: policy,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"gpufleet.dev/class": "c"}},
		}},
	})
	c := &Class{Name: "c", Pod: p, Info: NewPodInfo(p), Pods: pods}
	cells := []Cell{Evaluate(c, &pools[0]), Evaluate(c, &pools[1])}
	return c, cells, pools
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

func TestPodTopologySpread(t *testing.T) {
	// Taints are ignored by default when counting domains: zones b and c
	// count, hold no pod, and cap zone a at one.
	c, cells, pools := spreadFleet(2, nil)
	if f := PodTopologySpread(c, NewRow(cells), pools); len(f) != 1 || f[0].Check != "PodTopologySpread" {
		t.Fatalf("want a spread finding, got %v", f)
	}
	c, cells, pools = spreadFleet(1, nil)
	if f := PodTopologySpread(c, NewRow(cells), pools); len(f) != 0 {
		t.Fatalf("one pod fits: %v", f)
	}
	// nodeTaintsPolicy Honor drops the untolerated zones.
	honor := corev1.NodeInclusionPolicyHonor
	c, cells, pools = spreadFleet(3, &honor)
	if f := PodTopologySpread(c, NewRow(cells), pools); len(f) != 0 {
		t.Fatalf("with Honor only zone a counts: %v", f)
	}
}

func TestInterPodAffinity(t *testing.T) {
	c, cells, _ := spreadFleet(5, nil)
	c.Pod.Spec.TopologySpreadConstraints = nil
	c.Pod.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		TopologyKey: keys.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"gpufleet.dev/class": "c"}},
	}}}
	// Only pool "open" fits, with 4 nodes: 5 pods with one per node fail.
	if f := InterPodAffinity(c, NewRow(cells), nil); len(f) != 1 || f[0].Check != "InterPodAffinity" {
		t.Fatalf("want an anti-affinity finding, got %v", f)
	}
	c.Pods = 4
	if f := InterPodAffinity(c, NewRow(cells), nil); len(f) != 0 {
		t.Fatalf("4 pods on 4 nodes fit: %v", f)
	}
	// Zone anti-affinity: one zone fits.
	c.Pod.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey = keys.LabelZone
	c.Pods = 2
	if f := InterPodAffinity(c, NewRow(cells), nil); len(f) != 1 {
		t.Fatalf("2 pods, one per zone, one zone: want a finding, got %v", f)
	}
}

func TestGang(t *testing.T) {
	c, cells, pools := spreadFleet(33, nil)
	// Pool "open": 4 nodes × 8 pods (cpu=8, 1 cpu each) = 32.
	if cells[1].Capacity != 32 {
		t.Fatalf("capacity %d, want 32", cells[1].Capacity)
	}
	c.Gang = true
	if f := Gang(c, NewRow(cells), pools); len(f) != 1 || f[0].Check != "Gang" {
		t.Fatalf("want a gang finding, got %v", f)
	} else if !strings.HasSuffix(f[0].Message, ": Insufficient cpu") {
		// A full node of "open" has no cpu left for a 33rd pod.
		t.Errorf("the finding should end with kube-scheduler's reason for the pod left over: %q", f[0].Message)
	}
	c.Pods = 32
	if f := Gang(c, NewRow(cells), pools); len(f) != 0 {
		t.Fatalf("32 fit: %v", f)
	}
	if f := Capacity(c, NewRow(cells), pools); len(f) != 0 {
		t.Fatalf("a gang is Gang's: %v", f)
	}
	c.Gang, c.Pods = false, 40
	if f := Gang(c, NewRow(cells), pools); len(f) != 0 {
		t.Fatalf("replicas are Capacity's: %v", f)
	}
	if f := Capacity(c, NewRow(cells), pools); len(f) != 1 || f[0].Check != "Capacity" {
		t.Fatalf("want a capacity finding for replicas, got %v", f)
	}
}

func TestLands(t *testing.T) {
	c, cells, _ := spreadFleet(1, nil)
	if f := Lands(c, NewRow(cells), nil); len(f) != 0 {
		t.Fatalf("lands on open: %v", f)
	}
	f := Lands(c, NewRow(cells[:1]), nil)
	want := "0/1 pools can host class c: 1 node(s) had untolerated taint(s)."
	if len(f) != 1 || f[0].Message != want {
		t.Fatalf("got %v, want %q", f, want)
	}
}

// TestMatchLabelKeys: the keys the API server merges into the selector
// (pod-template-hash on a Deployment's pods) narrow the count to one
// workload, and the checker places one workload per class, so findings
// stay those of the class label alone, whether or not the pod carries the key.
func TestMatchLabelKeys(t *testing.T) {
	for _, podLabels := range []map[string]string{
		{"gpufleet.dev/class": "c"},                               // the template, as example.yaml has it
		{"gpufleet.dev/class": "c", "pod-template-hash": "5f7d9"}, // as the ReplicaSet creates it
	} {
		c, cells, pools := spreadFleet(2, nil)
		c.Pod.Labels = podLabels
		for i := range c.Pod.Spec.TopologySpreadConstraints {
			c.Pod.Spec.TopologySpreadConstraints[i].MatchLabelKeys = []string{"pod-template-hash"}
		}
		if f := PodTopologySpread(c, NewRow(cells), pools); len(f) != 1 || f[0].Check != "PodTopologySpread" {
			t.Errorf("labels %v: want the spread finding, got %v", podLabels, f)
		}
		c.Pod.Spec.TopologySpreadConstraints = nil
		c.Pods = 5
		c.Pod.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			TopologyKey: keys.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"gpufleet.dev/class": "c"}},
			MatchLabelKeys: []string{"pod-template-hash"},
		}}}
		if f := InterPodAffinity(c, NewRow(cells), nil); len(f) != 1 || f[0].Check != "InterPodAffinity" {
			t.Errorf("labels %v: want the anti-affinity finding, got %v", podLabels, f)
		}
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
