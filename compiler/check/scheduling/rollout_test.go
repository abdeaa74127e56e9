package scheduling

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// A rolling update with maxUnavailable 0 needs room for a surge pod at max
// size: a pool of 2 nodes of 2 pods each holds 4 replicas and no fifth.
func TestRollout(t *testing.T) {
	n := sched.Node{InstanceType: "t", Zone: "a", Node: checktest.Node(map[string]string{keys.LabelZone: "a"}, nil, "cpu=2,pods=110")}
	pools := []sched.Pool{{Name: "p", MaxNodes: 2, Zones: []string{"a"}, Nodes: []sched.Node{n}}}
	for _, tc := range []struct {
		name               string
		kind               string
		replicas           int32
		surge, unavailable int32
		queued             bool
		want               string
	}{
		{"full, surge only", keys.KindDeployment, 4, 1, 0, false,
			"a rollout of class c cannot progress at max size: maxUnavailable 0 keeps its 4 old pods, which fill the pools that fit (p 4), so the first of maxSurge 1 new pods stays Pending (Insufficient cpu) and the rollout ends in ProgressDeadlineExceeded; set rollout.maxUnavailable to 1 or more, or give the pools room for 1 more pods"},
		{"room for the surge", keys.KindDeployment, 3, 1, 0, false, ""},
		{"one down at a time", keys.KindDeployment, 4, 1, 1, false, ""},
		{"over capacity is Capacity's", keys.KindDeployment, 5, 1, 0, false, ""},
		{"a StatefulSet replaces in place", keys.KindStatefulSet, 4, 0, 0, false, ""},
		{"queued waits on Kueue", keys.KindDeployment, 4, 1, 0, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := checktest.Pod(corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=1")}})
			c := &sched.Class{Name: "c", Kind: tc.kind, Pod: p, Info: sched.NewPodInfo(p), Pods: tc.replicas, MaxSurge: tc.surge, MaxUnavailable: tc.unavailable, Queued: tc.queued}
			var got []string
			for _, f := range Rollout(c, sched.NewRow([]sched.Cell{sched.Evaluate(c, &pools[0])}), pools) {
				got = append(got, f.Message)
			}
			if strings.Join(got, "\n") != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}
