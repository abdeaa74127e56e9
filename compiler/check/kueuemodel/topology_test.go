package kueuemodel

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// Kueue's checkPodSetAndFlavorMatchForTAS, run before taints and node
// affinity, in the flavor assigner's words: a TAS flavor takes only
// workloads placed by topology, a workload that asks for topology only
// TAS flavors with its level, and a ClusterQueue of TAS flavors alone
// places every workload by topology (isTASImplied).
func TestTASMismatch(t *testing.T) {
	topo := "network-3-layers"
	tas := kueue.ResourceFlavorSpec{TopologyName: &topo}
	gpu := corev1.ResourceName("nvidia.com/gpu")
	queue := func(name string, flavors ...string) *kueue.ClusterQueue {
		var fq []kueue.FlavorQuotas
		for _, f := range flavors {
			fq = append(fq, kueue.FlavorQuotas{Name: f, Resources: []kueue.ResourceQuota{{Name: gpu, NominalQuota: resource.MustParse("8")}}})
		}
		return &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kueue.ClusterQueueSpec{
			ResourceGroups: []kueue.ResourceGroup{{CoveredResources: []corev1.ResourceName{gpu}, Flavors: fq}}}}
	}
	m := &Model{
		Flavors:    map[string]kueue.ResourceFlavorSpec{"t": tas, "p": {}},
		Topologies: map[string][]string{topo: {"l1", "l2", "l3", "kubernetes.io/hostname"}},
		Queues:     map[string]*kueue.ClusterQueue{"mixed": queue("mixed", "t", "p"), "tasonly": queue("tasonly", "t")},
	}
	pod := func(key, level string) *corev1.Pod {
		p := &corev1.Pod{}
		if key != "" {
			p.Annotations = map[string]string{key: level}
		}
		return p
	}
	total := map[corev1.ResourceName]int64{gpu: 8}
	for _, tc := range []struct {
		name, cq, flavor string
		pod              *corev1.Pod
		want             string
		requested        bool
	}{
		{"plain workload, plain flavor", "mixed", "p", pod("", ""), "", false},
		{"plain workload, TAS flavor", "mixed", "t", pod("", ""), `Flavor "t" supports only TopologyAwareScheduling`, false},
		{"required, TAS flavor", "mixed", "t", pod(kueue.AnnotationRequiredTopology, "l3"), "", true},
		{"required, plain flavor", "mixed", "p", pod(kueue.AnnotationRequiredTopology, "l3"), `Flavor "p" does not support TopologyAwareScheduling`, true},
		{"a level the Topology lacks", "mixed", "t", pod(kueue.AnnotationPreferredTopology, "l4"), `Flavor "t" does not contain the requested level`, true},
		{"unconstrained", "mixed", "t", pod(kueue.AnnotationUnconstrainedTopology, "true"), "", true},
		{"implied in a TAS-only queue", "tasonly", "t", pod("", ""), "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := TopologyOf(tc.pod)
			if got := m.TASRequested(tc.cq, tr); got != tc.requested {
				t.Errorf("TASRequested = %v, want %v", got, tc.requested)
			}
			if got := m.tasMismatch(tc.cq, tr, tc.flavor, []corev1.ResourceName{gpu}, total); got != tc.want {
				t.Errorf("tasMismatch = %q, want %q", got, tc.want)
			}
		})
	}
	if !m.TASOnly("tasonly") || m.TASOnly("mixed") || m.TASOnly("missing") {
		t.Error("TASOnly: want tasonly alone")
	}
	// A plain flavor that covers none of the workload's resources may
	// give quota-only ones beside the TAS flavor.
	if got := m.tasMismatch("mixed", TopologyOf(pod(kueue.AnnotationRequiredTopology, "l3")), "p", []corev1.ResourceName{"example.com/licence"}, total); got != "" {
		t.Errorf("uncovered resources: %q", got)
	}
}

// ParseDomains reads the flavor annotation gpufleet writes and refuses
// anything else a committed tree may hold.
func TestParseDomains(t *testing.T) {
	got, err := ParseDomains("a/l2=8,a/l3=2")
	if err != nil || len(got) != 2 || got["a/l2"] != 8 || got["a/l3"] != 2 {
		t.Errorf("ParseDomains = %v, %v", got, err)
	}
	if got, err := ParseDomains(""); got != nil || err != nil {
		t.Errorf("empty: %v, %v", got, err)
	}
	for _, bad := range []string{"a", "a=", "=2", "a=0", "a=-1", "a=x", "a=2,a=4", "a=99999999999", strings.Repeat("a=1,", 17)} {
		if _, err := ParseDomains(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
