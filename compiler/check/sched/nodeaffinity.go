package sched

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// ErrReasonNodeAffinity is kube-scheduler's NodeAffinity reason.
const ErrReasonNodeAffinity = "node(s) didn't match Pod's node affinity/selector"

// NodeAffinity is nodeSelector AND required node affinity: terms ORed,
// expressions ANDed, Gt and Lt as integers, exactly as the scheduler
// evaluates them.
var NodeAffinity = NodeFilter{Name: "NodeAffinity", Filter: nodeAffinity, Explain: affinityCompared}

var reasonNodeAffinity = []string{ErrReasonNodeAffinity}

func nodeAffinity(pi *PodInfo, node *corev1.Node) []string {
	// Match errors only on selectors the API server would have rejected;
	// the scheduler treats them as no match, and so does this.
	if ok, err := pi.Affinity.Match(node); !ok || err != nil {
		return reasonNodeAffinity
	}
	return nil
}

// affinityCompared shows each key the pod selects on beside the node's value.
func affinityCompared(pi *PodInfo, node *corev1.Node) string {
	pod := pi.Pod
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
