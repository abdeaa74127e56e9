package scheduling

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// spreadFleet: class c fits pool "open" (zone a) but only matches, without
// tolerating, pool "closed" (zones b, c).
func spreadFleet(pods int32, policy *corev1.NodeInclusionPolicy) (*sched.Class, []sched.Cell, []sched.Pool) {
	mk := func(pool, zone string, taints []corev1.Taint) sched.Node {
		n := checktest.Node(map[string]string{"gpu": "H100", keys.LabelZone: zone, keys.LabelHostname: pool + zone}, taints, "cpu=8,pods=10")
		return sched.Node{InstanceType: "t", Zone: zone, Node: n}
	}
	taint := []corev1.Taint{{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}}
	pools := []sched.Pool{
		{Name: "closed", MaxNodes: 4, Zones: []string{"b", "c"}, Nodes: []sched.Node{mk("closed", "b", taint), mk("closed", "c", taint)}},
		{Name: "open", MaxNodes: 4, Zones: []string{"a"}, Nodes: []sched.Node{mk("open", "a", nil)}},
	}
	p := checktest.Pod(corev1.PodSpec{
		Affinity:   checktest.Required([]corev1.NodeSelectorRequirement{checktest.Match("gpu", corev1.NodeSelectorOpIn, "H100")}),
		Containers: []corev1.Container{checktest.Container("cpu=1")},
		TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: keys.LabelZone, WhenUnsatisfiable: corev1.DoNotSchedule, NodeTaintsPolicy: policy,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"gpufleet.dev/class": "c"}},
		}},
	})
	c := &sched.Class{Name: "c", Pod: p, Info: sched.NewPodInfo(p), Pods: pods}
	cells := []sched.Cell{sched.Evaluate(c, &pools[0]), sched.Evaluate(c, &pools[1])}
	return c, cells, pools
}

func TestPodTopologySpread(t *testing.T) {
	// Taints are ignored by default when counting domains: zones b and c
	// count, hold no pod, and cap zone a at one.
	c, cells, pools := spreadFleet(2, nil)
	if f := PodTopologySpread(c, sched.NewRow(cells), pools); len(f) != 1 || f[0].Check != "PodTopologySpread" {
		t.Fatalf("want a spread finding, got %v", f)
	}
	c, cells, pools = spreadFleet(1, nil)
	if f := PodTopologySpread(c, sched.NewRow(cells), pools); len(f) != 0 {
		t.Fatalf("one pod fits: %v", f)
	}
	// nodeTaintsPolicy Honor drops the untolerated zones.
	honor := corev1.NodeInclusionPolicyHonor
	c, cells, pools = spreadFleet(3, &honor)
	if f := PodTopologySpread(c, sched.NewRow(cells), pools); len(f) != 0 {
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
	if f := InterPodAffinity(c, sched.NewRow(cells), nil); len(f) != 1 || f[0].Check != "InterPodAffinity" {
		t.Fatalf("want an anti-affinity finding, got %v", f)
	}
	c.Pods = 4
	if f := InterPodAffinity(c, sched.NewRow(cells), nil); len(f) != 0 {
		t.Fatalf("4 pods on 4 nodes fit: %v", f)
	}
	// Zone anti-affinity: one zone fits.
	c.Pod.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey = keys.LabelZone
	c.Pods = 2
	if f := InterPodAffinity(c, sched.NewRow(cells), nil); len(f) != 1 {
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
	if f := Gang(c, sched.NewRow(cells), pools); len(f) != 1 || f[0].Check != "Gang" {
		t.Fatalf("want a gang finding, got %v", f)
	} else if !strings.HasSuffix(f[0].Message, ": Insufficient cpu") {
		// A full node of "open" has no cpu left for a 33rd pod.
		t.Errorf("the finding should end with kube-scheduler's reason for the pod left over: %q", f[0].Message)
	}
	c.Pods = 32
	if f := Gang(c, sched.NewRow(cells), pools); len(f) != 0 {
		t.Fatalf("32 fit: %v", f)
	}
	if f := Capacity(c, sched.NewRow(cells), pools); len(f) != 0 {
		t.Fatalf("a gang is Gang's: %v", f)
	}
	c.Gang, c.Pods = false, 40
	if f := Gang(c, sched.NewRow(cells), pools); len(f) != 0 {
		t.Fatalf("replicas are Capacity's: %v", f)
	}
	if f := Capacity(c, sched.NewRow(cells), pools); len(f) != 1 || f[0].Check != "Capacity" {
		t.Fatalf("want a capacity finding for replicas, got %v", f)
	}
}

func TestLands(t *testing.T) {
	c, cells, _ := spreadFleet(1, nil)
	if f := Lands(c, sched.NewRow(cells), nil); len(f) != 0 {
		t.Fatalf("lands on open: %v", f)
	}
	f := Lands(c, sched.NewRow(cells[:1]), nil)
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
		if f := PodTopologySpread(c, sched.NewRow(cells), pools); len(f) != 1 || f[0].Check != "PodTopologySpread" {
			t.Errorf("labels %v: want the spread finding, got %v", podLabels, f)
		}
		c.Pod.Spec.TopologySpreadConstraints = nil
		c.Pods = 5
		c.Pod.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			TopologyKey: keys.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"gpufleet.dev/class": "c"}},
			MatchLabelKeys: []string{"pod-template-hash"},
		}}}
		if f := InterPodAffinity(c, sched.NewRow(cells), nil); len(f) != 1 || f[0].Check != "InterPodAffinity" {
			t.Errorf("labels %v: want the anti-affinity finding, got %v", podLabels, f)
		}
	}
}
