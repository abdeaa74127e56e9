// Package checktest makes the nodes, pods and Kueue objects the checker's
// table tests are written with.
package checktest

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Node is a node named n with labels, taints and allocatable alloc (as
// Resources parses it).
func Node(labels map[string]string, taints []corev1.Taint, alloc string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: labels}, Spec: corev1.NodeSpec{Taints: taints}}
	n.Status.Allocatable = Resources(alloc)
	return n
}

// Resources parses "cpu=4,memory=16Gi,pods=29,nvidia.com/gpu=1".
func Resources(s string) corev1.ResourceList {
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

// Pod is a pod of class c.
func Pod(spec corev1.PodSpec) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"gpufleet.dev/class": "c"}}, Spec: spec}
}

// Container is a container main that requests req (as Resources parses it).
func Container(req string) corev1.Container {
	return corev1.Container{Name: "main", Resources: corev1.ResourceRequirements{Requests: Resources(req)}}
}

// Required is required node affinity of terms, each ANDing its requirements.
func Required(terms ...[]corev1.NodeSelectorRequirement) *corev1.Affinity {
	var ts []corev1.NodeSelectorTerm
	for _, t := range terms {
		ts = append(ts, corev1.NodeSelectorTerm{MatchExpressions: t})
	}
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: ts}}}
}

// Match is one node selector requirement.
func Match(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}
