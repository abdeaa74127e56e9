package kueue

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// Admits applies Kueue's flavor assigner to one pod template and one
// flavor: every NoSchedule or NoExecute nodeTaint must be tolerated, and the
// pod's nodeSelector and required node affinity, restricted to the keys the
// flavor's nodeLabels name, must match those labels. It returns Kueue's
// reason when the flavor does not fit.
func Admits(name string, f ResourceFlavorSpec, pod *corev1.Pod) (bool, string) {
	if reason, ok := tolerates(name, f, pod); !ok {
		return false, reason
	}
	return matches(name, f, nodeaffinity.GetRequiredNodeAffinity(restrict(pod, f.NodeLabels)))
}

// Admitter is Admits of one pod, for many flavors. Restricting the pod's
// node affinity to a flavor's keys and compiling it is most of Admits'
// work, and a fleet's flavors mostly name the same keys: restrict reads a
// flavor's labels only through which of the pod's keys they have, so the
// compiled affinity is kept per such set. The function is for one
// goroutine.
func Admitter(pod *corev1.Pod) func(name string, f ResourceFlavorSpec) (bool, string) {
	keys := podKeys(pod)
	compiled := map[string]nodeaffinity.RequiredNodeAffinity{}
	has := make([]byte, len(keys))
	return func(name string, f ResourceFlavorSpec) (bool, string) {
		if reason, ok := tolerates(name, f, pod); !ok {
			return false, reason
		}
		for i, k := range keys {
			has[i] = '0'
			if _, ok := f.NodeLabels[k]; ok {
				has[i] = '1'
			}
		}
		a, ok := compiled[string(has)]
		if !ok {
			a = nodeaffinity.GetRequiredNodeAffinity(restrict(pod, f.NodeLabels))
			compiled[string(has)] = a
		}
		return matches(name, f, a)
	}
}

// tolerates reports whether the pod tolerates every NoSchedule or
// NoExecute taint of the flavor, else Kueue's reason.
func tolerates(name string, f ResourceFlavorSpec, pod *corev1.Pod) (string, bool) {
	hard := func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}
	if t, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), f.NodeTaints, pod.Spec.Tolerations, hard, false); untolerated {
		// Kueue formats the taint struct with %s, as is.
		return fmt.Sprintf("untolerated taint %s in flavor %s", t, name), false
	}
	return "", true
}

// matches reports whether the restricted affinity matches the flavor's
// labels, else Kueue's reason.
func matches(name string, f ResourceFlavorSpec, a nodeaffinity.RequiredNodeAffinity) (bool, string) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: f.NodeLabels}}
	if ok, err := a.Match(node); !ok || err != nil {
		return false, fmt.Sprintf("flavor %s doesn't match node affinity", name)
	}
	return true, ""
}

// podKeys are the label keys restrict looks up, sorted: the pod's
// nodeSelector's and its required node affinity's.
func podKeys(pod *corev1.Pod) []string {
	seen := map[string]bool{}
	for k := range pod.Spec.NodeSelector {
		seen[k] = true
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, r := range t.MatchExpressions {
				seen[r.Key] = true
			}
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// restrict keeps only the selector keys the flavor defines, as Kueue does:
// keys it does not know about are left to the scheduler.
func restrict(pod *corev1.Pod, labels map[string]string) *corev1.Pod {
	out := &corev1.Pod{}
	for k, v := range pod.Spec.NodeSelector {
		if _, ok := labels[k]; ok {
			if out.Spec.NodeSelector == nil {
				out.Spec.NodeSelector = map[string]string{}
			}
			out.Spec.NodeSelector[k] = v
		}
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return out
	}
	var terms []corev1.NodeSelectorTerm
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		var exprs []corev1.NodeSelectorRequirement
		for _, r := range t.MatchExpressions {
			if _, ok := labels[r.Key]; ok {
				exprs = append(exprs, r)
			}
		}
		if len(exprs) == 0 {
			return out // a term with nothing the flavor knows matches it
		}
		terms = append(terms, corev1.NodeSelectorTerm{MatchExpressions: exprs})
	}
	out.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
	return out
}
