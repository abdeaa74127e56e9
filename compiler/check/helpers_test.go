package check

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func node(labels map[string]string, taints []corev1.Taint, alloc string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: labels}, Spec: corev1.NodeSpec{Taints: taints}}
	n.Status.Allocatable = resources(alloc)
	return n
}

// resources parses "cpu=4,memory=16Gi,pods=29,nvidia.com/gpu=1".
func resources(s string) corev1.ResourceList {
	rl := corev1.ResourceList{}
	if s == "" {
		return rl
	}
	for _, kv := range splitComma(s) {
		k, v := kv[0], kv[1]
		rl[corev1.ResourceName(k)] = resource.MustParse(v)
	}
	return rl
}

func splitComma(s string) [][2]string {
	var out [][2]string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			part := s[start:i]
			for j := 0; j < len(part); j++ {
				if part[j] == '=' {
					out = append(out, [2]string{part[:j], part[j+1:]})
					break
				}
			}
			start = i + 1
		}
	}
	return out
}

func pod(spec corev1.PodSpec) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"gpufleet.dev/class": "c"}}, Spec: spec}
}

func container(req string) corev1.Container {
	return corev1.Container{Name: "main", Resources: corev1.ResourceRequirements{Requests: resources(req)}}
}

// rows evaluates every class of cl on every pool: a row per class, in
// class order, as RunCluster gives them.
func rows(cl *Cluster) []Row {
	out := make([]Row, len(cl.Classes))
	for i := range cl.Classes {
		var cells []Cell
		for j := range cl.Pools {
			cells = append(cells, Evaluate(&cl.Classes[i], &cl.Pools[j]))
		}
		out[i] = *NewRow(cells)
	}
	return out
}

// onePool is a cluster of one pool of one node n and one class of pod.
func onePool(pool string, spot bool, n *corev1.Node, class string, pod *corev1.Pod) *Cluster {
	return &Cluster{
		Pools:   []Pool{{Name: pool, Spot: spot, MaxNodes: 1, Nodes: []Node{{InstanceType: "t", Zone: "a", Node: n}}}},
		Classes: []Class{{Name: class, Pod: pod, Info: NewPodInfo(pod), Pods: 1}},
	}
}
