package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// rows evaluates every class of cl on every pool: a row per class, in
// class order, as RunCluster gives them.
func rows(cl *sched.Cluster) []sched.Row {
	out := make([]sched.Row, len(cl.Classes))
	for i := range cl.Classes {
		var cells []sched.Cell
		for j := range cl.Pools {
			cells = append(cells, sched.Evaluate(&cl.Classes[i], &cl.Pools[j]))
		}
		out[i] = *sched.NewRow(cells)
	}
	return out
}

// onePool is a cluster of one pool of one node n and one class of pod.
func onePool(pool string, spot bool, n *corev1.Node, class string, pod *corev1.Pod) *sched.Cluster {
	return &sched.Cluster{
		Pools:   []sched.Pool{{Name: pool, Spot: spot, MaxNodes: 1, Nodes: []sched.Node{{InstanceType: "t", Zone: "a", Node: n}}}},
		Classes: []sched.Class{{Name: class, Pod: pod, Info: sched.NewPodInfo(pod), Pods: 1}},
	}
}
