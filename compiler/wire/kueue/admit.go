package kueue

import (
	"fmt"

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
	hard := func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}
	if t, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), f.NodeTaints, pod.Spec.Tolerations, hard, false); untolerated {
		// Kueue formats the taint struct with %s, as is.
		return false, fmt.Sprintf("untolerated taint %s in flavor %s", t, name)
	}
	restricted := restrict(pod, f.NodeLabels)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: f.NodeLabels}}
	if ok, err := nodeaffinity.GetRequiredNodeAffinity(restricted).Match(node); !ok || err != nil {
		return false, fmt.Sprintf("flavor %s doesn't match node affinity", name)
	}
	return true, ""
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
