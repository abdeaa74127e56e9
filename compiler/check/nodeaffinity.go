package check

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// ErrReasonNodeAffinity is kube-scheduler's NodeAffinity reason.
const ErrReasonNodeAffinity = "node(s) didn't match Pod's node affinity/selector"

// NodeAffinity is nodeSelector AND required node affinity: terms ORed,
// expressions ANDed, Gt and Lt as integers, exactly as the scheduler
// evaluates them.
var NodeAffinity = NodeFilter{Name: "NodeAffinity", Filter: nodeAffinity}

func nodeAffinity(pod *corev1.Pod, node *corev1.Node) Status {
	ok, err := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)
	st := Status{Compared: affinityCompared(pod, node)}
	if err != nil {
		st.Reasons = []string{ErrReasonNodeAffinity}
		st.Compared += "; " + err.Error()
	} else if !ok {
		st.Reasons = []string{ErrReasonNodeAffinity}
	}
	return st
}

// affinityCompared shows each key the pod selects on beside the node's value.
func affinityCompared(pod *corev1.Pod, node *corev1.Node) string {
	keys := map[string]bool{}
	for k := range pod.Spec.NodeSelector {
		keys[k] = true
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, r := range t.MatchExpressions {
				keys[r.Key] = true
			}
		}
	}
	if len(keys) == 0 {
		return "pod has no nodeSelector or required node affinity"
	}
	var parts []string
	for k := range keys {
		v, ok := node.Labels[k]
		if !ok {
			v = "<absent>"
		}
		parts = append(parts, fmt.Sprintf("node %s=%s", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
