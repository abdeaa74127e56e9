package kubesched

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSchedule: Score decides where pods go, the cache carries each bound
// pod into the next cycle, and the first pod refused has the Diagnosis's
// reasons and the FailedScheduling message. Two nodes hold 2 one-cpu pods
// each: the default profile (LeastAllocated) alternates between them, a
// MostAllocated profile fills one first, and the fifth pod fits nowhere.
func TestSchedule(t *testing.T) {
	node := func(name string) *v1.Node {
		return &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
			Status: v1.NodeStatus{Allocatable: v1.ResourceList{
				v1.ResourceCPU: resource.MustParse("2"), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse("10"),
			}},
		}
	}
	nodes := []*v1.Node{node("a"), node("b")}
	var pods []*v1.Pod
	for i := range 5 {
		pods = append(pods, &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%d", i)},
			Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")},
			}}}},
		})
	}
	binpack, err := loadSchedulerConfig([]byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: binpack
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		cfg   int // -1: the default profile
		hosts []string
	}{
		{"default profile spreads", -1, []string{"a", "b", "a", "b"}},
		{"MostAllocated fills a node first", 0, []string{"a", "a", "b", "b"}},
	} {
		profile := &binpack.Profiles[0]
		if tc.cfg < 0 {
			profile = nil
		}
		got, err := Schedule(profile, pods, nodes, nil)
		if err != nil {
			t.Fatal(err)
		}
		if h := hosts(got); !slices.Equal(h, tc.hosts) {
			t.Errorf("%s: pods on %v, want %v", tc.name, h, tc.hosts)
		}
		if got.Refused == nil || got.Refused.Name != "p-4" {
			t.Fatalf("%s: want p-4 refused, got %v", tc.name, got.Refused)
		}
		for _, n := range []string{"a", "b"} {
			if rs := got.Reasons[n]; !slices.Equal(rs, []string{noCPU}) {
				t.Errorf("%s: node %s reasons %q, want %q", tc.name, n, rs, noCPU)
			}
		}
		if !strings.HasPrefix(got.Message, "0/2 nodes are available: 2 Insufficient cpu.") || got.Nominated != "" {
			t.Errorf("%s: message %q, nominated %q", tc.name, got.Message, got.Nominated)
		}
	}
	// The tie-break: equal scores go to the node less puts first.
	got, err := Schedule(nil, pods[:1], nodes, func(a, b string) bool { return a > b })
	if err != nil || !slices.Equal(hosts(got), []string{"b"}) {
		t.Errorf("reversed tie-break: pods on %v (%v), want [b]", hosts(got), err)
	}
}
