package drift

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// Launched are the nodes the pools launch, as the checker synthesises them
// from the tree: one per instance type and populated zone, named
// POOL-TYPE-ZONE, as 'kubectl get nodes -o json' lists them. A cluster of
// exactly these nodes has no drift; tests mutate copies.
func Launched(cl *sched.Cluster) []corev1.Node {
	var out []corev1.Node
	for _, p := range cl.Pools {
		for _, n := range p.Nodes {
			c := n.Node.DeepCopy()
			c.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}
			out = append(out, *c)
		}
	}
	slices.SortFunc(out, func(a, b corev1.Node) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// NodeList wraps nodes as kubectl prints them.
func NodeList(ns []corev1.Node) *corev1.NodeList {
	return &corev1.NodeList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}, Items: ns}
}
