package sched

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/gpufleet/gpufleet/compiler/keys"
)

// ErrReasonAntiAffinity is kube-scheduler's InterPodAffinity reason.
const ErrReasonAntiAffinity = "node(s) didn't match pod anti-affinity rules"

// AntiAffinityLimit is how many of the class's pods a required
// anti-affinity term against its own pods lets run: one per node
// (hostname) or zone of the pools that fit. It is 0, and unit "", for a
// term that does not select the class or has another key. Only the
// evaluated cells have zones.
func AntiAffinityLimit(c *Class, term corev1.PodAffinityTerm, w *Row) (limit int64, unit string) {
	if !selectsSelf(term.LabelSelector, term.MatchLabelKeys, c.Pod) {
		return 0, ""
	}
	switch term.TopologyKey {
	case keys.LabelHostname:
		for _, cell := range w.Evaluated {
			for _, z := range cell.Zones {
				if z.PodsPerNode > 0 {
					limit += z.Nodes
				}
			}
		}
		return limit, "nodes"
	case keys.LabelZone:
		return int64(len(fittingZones(w.Evaluated))), "zones"
	}
	return 0, ""
}

// selectsSelf reports whether a spread or anti-affinity term counts the
// pod's own workload. matchLabelKeys are merged into the selector as the
// API server merges them at pod creation (v1.35): a key the pod carries
// adds "key In (its value)", one it lacks is ignored. Either way the pod
// still selects itself, and the checker places one workload per class, so
// the counts are those of the class label alone.
func selectsSelf(sel *metav1.LabelSelector, matchLabelKeys []string, pod *corev1.Pod) bool {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil || s.Empty() {
		return false
	}
	for _, k := range matchLabelKeys {
		if v, ok := pod.Labels[k]; ok {
			r, err := labels.NewRequirement(k, selection.In, []string{v})
			if err != nil {
				return false
			}
			s = s.Add(*r)
		}
	}
	return s.Matches(labels.Set(pod.Labels))
}

func fittingZones(cells []Cell) map[string]bool {
	zones := map[string]bool{}
	for _, cell := range cells {
		for _, z := range cell.Zones {
			if z.PodsPerNode > 0 && z.Nodes > 0 {
				zones[z.Zone] = true
			}
		}
	}
	return zones
}

// SelfAntiAffinity reports whether the class's pods repel each other on key.
func SelfAntiAffinity(c *Class, key string) bool {
	a := c.Pod.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return false
	}
	for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if term.TopologyKey == key && selectsSelf(term.LabelSelector, term.MatchLabelKeys, c.Pod) {
			return true
		}
	}
	return false
}
