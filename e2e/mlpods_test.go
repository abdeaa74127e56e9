package e2e

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// TestMLJudge holds mlJudge to pods as the controllers label them: the
// checker's own expectation agrees with pods bound as it says, and each
// deliberate bug (mlMutants) disagrees with them; pods bound elsewhere,
// or too few, are caught.
func TestMLJudge(t *testing.T) {
	pinned := func(f string, n int32) *check.Pinned {
		return &check.Pinned{Flavor: f, Admitted: n, Placed: int64(n)}
	}
	// unit is a workload of a CPU role and a GPU role, each on its own
	// flavor, all of whose pods kube-scheduler places.
	unit := func(cpu string, c int32, gpu string, g int32) *check.Unit {
		return &check.Unit{PodSets: []check.UnitPodSet{
			{Name: cpu, Pods: c, Flavor: "cpu", Pinned: pinned("cpu", c)},
			{Name: gpu, Pods: g, Flavor: "gpu", Pinned: pinned("gpu", g)},
		}}
	}
	fr := &fleetRun{nodes: nodeSet{poolOf: map[string]string{"cpu-0": "cpu", "gpu-0": "gpu", "gpu-1": "gpu"}}}
	pod := func(name string, labels map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	}
	for _, tc := range []struct {
		name    string
		kind    string
		u       *check.Unit
		pods    map[string]*corev1.Pod
		bound   map[string]string
		bad     bool
		mutants int
	}{{
		name: "a JobSet's roles each on its flavor's pool",
		kind: keys.KindJobSet,
		u:    unit("driver", 1, "trainer", 2),
		pods: map[string]*corev1.Pod{
			"d":  pod("d", map[string]string{jobSetReplicatedJob: "driver"}),
			"t0": pod("t0", map[string]string{jobSetReplicatedJob: "trainer"}),
			"t1": pod("t1", map[string]string{jobSetReplicatedJob: "trainer"}),
		},
		bound:   map[string]string{"d": "cpu-0", "t0": "gpu-0", "t1": "gpu-1"},
		mutants: 1,
	}, {
		name: "a JobSet's driver on the trainers' pool",
		kind: keys.KindJobSet,
		u:    unit("driver", 1, "trainer", 1),
		pods: map[string]*corev1.Pod{
			"d":  pod("d", map[string]string{jobSetReplicatedJob: "driver"}),
			"t0": pod("t0", map[string]string{jobSetReplicatedJob: "trainer"}),
		},
		bound: map[string]string{"d": "gpu-1", "t0": "gpu-0"},
		bad:   true,
	}, {
		name: "a RayCluster's pods, made from its templates, by their role label",
		kind: keys.KindRayCluster,
		u:    unit("head", 1, "gpu", 1),
		pods: map[string]*corev1.Pod{
			"h": pod("h", map[string]string{keys.LabelRole: "head"}),
			"g": pod("g", map[string]string{keys.LabelRole: "gpu"}),
		},
		bound:   map[string]string{"h": "cpu-0", "g": "gpu-0"},
		mutants: 1,
	}, {
		name: "a LeaderWorkerSet group: leader on CPU, workers on GPU",
		kind: keys.KindLeaderWorkerSet,
		u:    unit("leader", 1, "worker", 2),
		pods: map[string]*corev1.Pod{
			"l":   pod("l", map[string]string{lwsWorkerIndexLabel: "0"}),
			"l-1": pod("l-1", map[string]string{lwsWorkerIndexLabel: "1"}),
			"l-2": pod("l-2", map[string]string{lwsWorkerIndexLabel: "2"}),
		},
		bound:   map[string]string{"l": "cpu-0", "l-1": "gpu-0", "l-2": "gpu-1"},
		mutants: 2,
	}, {
		name: "a TrainJob's nodes, made by Trainer's JobSet, on the GPU pool",
		kind: keys.KindTrainJob,
		u:    &check.Unit{PodSets: []check.UnitPodSet{{Name: "node", Pods: 2, Flavor: "gpu", Pinned: pinned("gpu", 2)}}},
		pods: map[string]*corev1.Pod{
			"n0": pod("n0", map[string]string{jobSetReplicatedJob: "node"}),
			"n1": pod("n1", map[string]string{jobSetReplicatedJob: "node"}),
		},
		bound:   map[string]string{"n0": "gpu-0", "n1": "gpu-1"},
		mutants: 1,
	}, {
		name: "a TrainJob's initializer on CPU, its nodes on GPU",
		kind: keys.KindTrainJob,
		u:    unit("dataset-initializer", 1, "node", 2),
		pods: map[string]*corev1.Pod{
			"d":  pod("d", map[string]string{jobSetReplicatedJob: "dataset-initializer"}),
			"n0": pod("n0", map[string]string{jobSetReplicatedJob: "node"}),
			"n1": pod("n1", map[string]string{jobSetReplicatedJob: "node"}),
		},
		bound:   map[string]string{"d": "cpu-0", "n0": "gpu-0", "n1": "gpu-1"},
		mutants: 2,
	}, {
		name: "a TrainJob's node on the CPU pool",
		kind: keys.KindTrainJob,
		u:    &check.Unit{PodSets: []check.UnitPodSet{{Name: "node", Pods: 2, Flavor: "gpu", Pinned: pinned("gpu", 2)}}},
		pods: map[string]*corev1.Pod{
			"n0": pod("n0", map[string]string{jobSetReplicatedJob: "node"}),
			"n1": pod("n1", map[string]string{jobSetReplicatedJob: "node"}),
		},
		bound: map[string]string{"n0": "gpu-0", "n1": "cpu-0"},
		bad:   true,
	}, {
		name: "a LeaderWorkerSet group short of a worker",
		kind: keys.KindLeaderWorkerSet,
		u:    unit("leader", 1, "worker", 2),
		pods: map[string]*corev1.Pod{
			"l":   pod("l", map[string]string{lwsWorkerIndexLabel: "0"}),
			"l-1": pod("l-1", map[string]string{lwsWorkerIndexLabel: "1"}),
		},
		bound: map[string]string{"l": "cpu-0", "l-1": "gpu-0"},
		bad:   true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			e := mlExpect{pool: map[string]string{}, placed: map[string]int{}}
			for _, ps := range tc.u.PodSets {
				e.pods += int(ps.Pods)
				e.pool[ps.Name] = ps.Flavor // each flavor's pool is named after it here
				e.placed[ps.Name] = int(ps.Pinned.Placed)
			}
			o := outcome{created: len(tc.pods), bound: tc.bound}
			if got := fr.mlJudge(tc.kind, tc.u, e, tc.pods, o); (len(got) > 0) != tc.bad {
				t.Fatalf("mlJudge: %q, want disagreement %v", got, tc.bad)
			}
			if tc.bad {
				return
			}
			ms := mlMutants(tc.kind, tc.u, e)
			if len(ms) != tc.mutants {
				t.Fatalf("%d mutants, want %d: %v", len(ms), tc.mutants, ms)
			}
			for name, m := range ms {
				if len(fr.mlJudge(tc.kind, tc.u, m, tc.pods, o)) == 0 {
					t.Errorf("the deliberate bug %q agrees with the pods", name)
				}
			}
		})
	}
}
