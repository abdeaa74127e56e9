package scaleup

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	resourcehelper "k8s.io/component-helpers/resource"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// Pod is a pending pod and the DRA devices its ResourceClaims take.
type Pod struct {
	Pod     *corev1.Pod
	Devices int64
}

// simNode is a node of the simulation: what is left of it, and the pods
// put on it. cluster-autoscaler runs kube-scheduler's Filter plugins on
// it (simulator/clustersnapshot/predicate/plugin_runner.go,
// SchedulerPluginRunner.RunFiltersOnNode); this restates those that decide
// a GPU fleet's pods: NodeAffinity, TaintToleration, NodeResourcesFit,
// DynamicResources (as a count of devices) and InterPodAffinity's
// required anti-affinity on the hostname.
type simNode struct {
	node    *corev1.Node
	free    corev1.ResourceList
	devices int64
	pods    []*corev1.Pod
}

func newSimNode(t Template) *simNode {
	return &simNode{node: t.Node, free: t.Node.Status.Allocatable.DeepCopy(), devices: t.Devices}
}

// fits says why p does not fit, in kube-scheduler's words, or "".
func (s *simNode) fits(p Pod) string {
	if ok, _ := nodeaffinity.GetRequiredNodeAffinity(p.Pod).Match(s.node); !ok {
		return "node(s) didn't match Pod's node affinity/selector"
	}
	if t, untolerated := v1helper.FindMatchingUntoleratedTaint(klog.Background(), s.node.Spec.Taints, p.Pod.Spec.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, false); untolerated {
		return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", t.Key, t.Value)
	}
	req := requests(p.Pod)
	for _, r := range slices.Sorted(maps.Keys(req)) {
		q := req[r]
		if q.IsZero() {
			continue
		}
		if free, ok := s.free[r]; !ok || free.Cmp(q) < 0 {
			return "Insufficient " + string(r)
		}
	}
	if p.Devices > s.devices {
		return "cannot allocate all claims"
	}
	for _, other := range s.pods {
		if antiAffine(p.Pod, other) || antiAffine(other, p.Pod) {
			return "node(s) didn't match pod anti-affinity rules"
		}
	}
	return ""
}

// put places p on the node.
func (s *simNode) put(p Pod) {
	for r, q := range requests(p.Pod) {
		f := s.free[r]
		f.Sub(q)
		s.free[r] = f
	}
	s.devices -= p.Devices
	s.pods = append(s.pods, p.Pod)
}

// requests is what the pod takes of a node, one pod slot included
// (k8s.io/component-helpers/resource.PodRequests, as NodeResourcesFit).
func requests(p *corev1.Pod) corev1.ResourceList {
	rl := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
	rl[corev1.ResourcePods] = *resourceOne()
	return rl
}

// antiAffine: a's required anti-affinity on the hostname matches b.
func antiAffine(a, b *corev1.Pod) bool {
	if a.Spec.Affinity == nil || a.Spec.Affinity.PodAntiAffinity == nil {
		return false
	}
	for _, term := range a.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if term.TopologyKey != corev1.LabelHostname {
			continue
		}
		if len(term.Namespaces) > 0 && !slices.Contains(term.Namespaces, b.Namespace) || len(term.Namespaces) == 0 && term.NamespaceSelector == nil && a.Namespace != b.Namespace {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if err == nil && sel.Matches(labels.Set(b.Labels)) {
			return true
		}
	}
	return false
}
