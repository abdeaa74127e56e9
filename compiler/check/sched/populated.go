package sched

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Reasons kube-scheduler gives on a cluster already running pods.
const (
	ErrReasonSpreadLabel          = "node(s) didn't match pod topology spread constraints (missing required label)"
	ErrReasonExistingAntiAffinity = "node(s) didn't satisfy existing pods anti-affinity rules"
)

// FilterPopulated is the checker's verdict for pod on each node of a
// cluster where existing pods are already bound (Spec.NodeName set), in
// kube-scheduler's Filter order and wording: taints, node affinity,
// resources less what the node's pods request, the pod's hard spreads
// counted over the nodes (PodTopologySpread), and required anti-affinity
// both ways (InterPodAffinity; gpufleet writes no pod affinity). The
// whole-class proofs (PodTopologySpread, InterPodAffinity, Gang) reason
// about the same rules in aggregate; this is them one pod at a time, so a
// differential can compare every intermediate state with the scheduler.
func FilterPopulated(pod *corev1.Pod, nodes []*corev1.Node, existing []*corev1.Pod) map[string][]string {
	return filterPopulated(NewPodInfo(pod), nodes, existing)
}

func filterPopulated(pi *PodInfo, nodes []*corev1.Node, existing []*corev1.Pod) map[string][]string {
	pod := pi.Pod
	on := map[string][]*corev1.Pod{}
	for _, p := range existing {
		on[p.Spec.NodeName] = append(on[p.Spec.NodeName], p)
	}
	spread := newSpreadState(pi, nodes, on)
	anti := newAntiState(pod, nodes, existing)
	out := make(map[string][]string, len(nodes))
	for _, n := range nodes {
		var rs []string
		for _, f := range []func() []string{
			func() []string { return nodeUnschedulable(pi, n) },
			func() []string { return taintToleration(pi, n) },
			func() []string { return nodeAffinity(pi, n) },
			func() []string { return fitAgainst(pi, n, WithRequested(n, on[n.Name])) },
			func() []string { return spread.filter(n) },
			func() []string { return anti.filter(n) },
		} {
			if rs = f(); len(rs) > 0 {
				break
			}
		}
		out[n.Name] = rs
	}
	return out
}

// WithRequested is the node with its pods' requests taken off its
// allocatable, as NodeResourcesFit compares them. A resource the node has
// none of stays at none: NodeResourcesFit refuses any request of it, or
// leaves it to DRA where the extended-resource bridge maps it (by the
// allocatable alone, fit.go's shouldDelegateResourceToDRA).
func WithRequested(n *corev1.Node, pods []*corev1.Pod) *corev1.Node {
	if len(pods) == 0 {
		return n
	}
	alloc := n.Status.Allocatable.DeepCopy()
	for _, p := range pods {
		for name, q := range PodRequest(p) {
			if have := n.Status.Allocatable[name]; have.IsZero() {
				continue
			}
			have := alloc[name]
			have.Sub(q)
			alloc[name] = have
		}
	}
	pods0 := alloc[corev1.ResourcePods]
	pods0.Set(pods0.Value() - int64(len(pods)))
	alloc[corev1.ResourcePods] = pods0
	c := *n
	c.Status.Allocatable = alloc
	return &c
}

// spreadState is PodTopologySpread's PreFilter: per hard constraint, the
// matching pods in each domain of the nodes it counts.
type spreadState struct {
	pod     *corev1.Pod
	tscs    []corev1.TopologySpreadConstraint
	sels    []labels.Selector
	counts  []map[string]int64
	domains []int
}

func newSpreadState(pi *PodInfo, nodes []*corev1.Node, on map[string][]*corev1.Pod) *spreadState {
	s := &spreadState{pod: pi.Pod}
	c := &Class{Pod: pi.Pod, Info: pi}
	for _, tsc := range pi.Pod.Spec.TopologySpreadConstraints {
		if tsc.WhenUnsatisfiable != corev1.DoNotSchedule {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(tsc.LabelSelector)
		if err != nil {
			sel = labels.Nothing()
		}
		s.tscs, s.sels = append(s.tscs, tsc), append(s.sels, sel)
	}
	for i, tsc := range s.tscs {
		counts := map[string]int64{}
		for _, n := range nodes {
			// A node lacking any constraint's key counts for none.
			if !hasKeys(n, s.tscs) || !spreadCounts(c, tsc, n) {
				continue
			}
			v := n.Labels[tsc.TopologyKey]
			counts[v] += countMatching(on[n.Name], s.sels[i], pi.Pod.Namespace)
		}
		s.counts, s.domains = append(s.counts, counts), append(s.domains, len(counts))
	}
	return s
}

func hasKeys(n *corev1.Node, tscs []corev1.TopologySpreadConstraint) bool {
	for _, tsc := range tscs {
		if _, ok := n.Labels[tsc.TopologyKey]; !ok {
			return false
		}
	}
	return true
}

func countMatching(pods []*corev1.Pod, sel labels.Selector, ns string) int64 {
	var n int64
	for _, p := range pods {
		if p.DeletionTimestamp == nil && p.Namespace == ns && sel.Matches(labels.Set(p.Labels)) {
			n++
		}
	}
	return n
}

func (s *spreadState) filter(n *corev1.Node) []string {
	for i, tsc := range s.tscs {
		v, ok := n.Labels[tsc.TopologyKey]
		if !ok {
			return []string{ErrReasonSpreadLabel}
		}
		count := s.counts[i][v]
		if !s.sels[i].Matches(labels.Set(s.pod.Labels)) {
			count-- // the pod itself does not count toward its skew
		}
		if !skewAllows(count, globalMinimum(s.counts[i], s.domains[i], tsc.MinDomains), tsc.MaxSkew) {
			return []string{ErrReasonSpread}
		}
	}
	return nil
}

// antiState is InterPodAffinity's PreFilter for required anti-affinity:
// the topology values the incoming pod may not share with its matches,
// and those existing pods forbid to it.
type antiState struct {
	own, existing map[string]map[string]bool // topology key → values
}

func newAntiState(pod *corev1.Pod, nodes []*corev1.Node, existing []*corev1.Pod) *antiState {
	nodeOf := map[string]*corev1.Node{}
	for _, n := range nodes {
		nodeOf[n.Name] = n
	}
	s := &antiState{own: map[string]map[string]bool{}, existing: map[string]map[string]bool{}}
	add := func(m map[string]map[string]bool, key string, n *corev1.Node) {
		if v, ok := n.Labels[key]; ok {
			if m[key] == nil {
				m[key] = map[string]bool{}
			}
			m[key][v] = true
		}
	}
	for _, e := range existing {
		n := nodeOf[e.Spec.NodeName]
		if n == nil {
			continue
		}
		for _, term := range requiredAnti(pod) {
			if termMatches(term, pod.Namespace, e) {
				add(s.own, term.TopologyKey, n)
			}
		}
		for _, term := range requiredAnti(e) {
			if termMatches(term, e.Namespace, pod) {
				add(s.existing, term.TopologyKey, n)
			}
		}
	}
	return s
}

func requiredAnti(p *corev1.Pod) []corev1.PodAffinityTerm {
	if a := p.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		return a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

// termMatches reports whether a term of a pod in namespace ns selects
// target: its namespaces (the pod's own when none are listed) and its
// label selector.
func termMatches(term corev1.PodAffinityTerm, ns string, target *corev1.Pod) bool {
	namespaces := term.Namespaces
	if len(namespaces) == 0 && term.NamespaceSelector == nil {
		namespaces = []string{ns}
	}
	inNS := false
	for _, n := range namespaces {
		inNS = inNS || n == target.Namespace
	}
	sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
	return inNS && err == nil && sel.Matches(labels.Set(target.Labels))
}

func (s *antiState) filter(n *corev1.Node) []string {
	for key, values := range s.own {
		if values[n.Labels[key]] {
			if _, ok := n.Labels[key]; ok {
				return []string{ErrReasonAntiAffinity}
			}
		}
	}
	for key, values := range s.existing {
		if _, ok := n.Labels[key]; ok && values[n.Labels[key]] {
			return []string{ErrReasonExistingAntiAffinity}
		}
	}
	return nil
}
