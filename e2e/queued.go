package e2e

import (
	"fmt"
	"maps"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// Kueue v0.19.2's names (pkg/controller/constants, jobs/pod/constants).
const (
	kueuePodGroupLabel = "kueue.x-k8s.io/pod-group-name" // also the annotation's
	kueuePodGroupCount = "kueue.x-k8s.io/pod-group-total-count"
	kueuePodFinalizer  = "kueue.x-k8s.io/managed"
)

// submission is a queued workload the harness created, and Kueue's
// decision on each of its Workloads: a Job's or a StatefulSet's one (its
// PodSet, its pod group), owned by the workload, under ""; a Deployment's
// one per pod, owned by the pod, under the pod's name (the pod
// integration admits each replica alone).
type submission struct {
	kind, ns, name string
	uid            types.UID
	// pods is the workload's (parallelism, replicas); sel lists them.
	pods      int
	sel       string
	decisions map[string]kueueDecision
}

// flavorOf is the flavor Kueue admitted the pod to, or "".
func (s *submission) flavorOf(pod string) string {
	d, ok := s.decisions[pod]
	if !ok {
		d = s.decisions[""]
	}
	if !d.admitted {
		return ""
	}
	return d.flavor()
}

// admittedTo is how many pods Kueue admitted to each flavor, and left
// pending.
func (s *submission) admittedTo() (map[string]int, int) {
	out, pending := map[string]int{}, 0
	if s.kind != keys.KindDeployment {
		if d := s.decisions[""]; d.admitted {
			out[d.flavor()] = s.pods
		} else {
			pending = s.pods
		}
		return out, pending
	}
	for _, d := range s.decisions {
		if d.admitted {
			out[d.flavor()]++
		} else {
			pending++
		}
	}
	return out, pending
}

func (s *submission) anyAdmitted() bool {
	for _, d := range s.decisions {
		if d.admitted {
			return true
		}
	}
	return false
}

// first is the decision to hold against the checker's for one unit on an
// empty cluster: the Workload's, or for a Deployment an admitted replica's
// on the checker's flavor, else any one's.
func (s *submission) first(flavor string) kueueDecision {
	names := slices.Sorted(maps.Keys(s.decisions))
	for _, n := range names {
		if d := s.decisions[n]; d.admitted && d.flavor() == flavor {
			return d
		}
	}
	if len(names) == 0 {
		return kueueDecision{}
	}
	return s.decisions[names[0]]
}

// flavor is the admission's flavor: the GPU's, else any resource's (one
// resource group gives every resource the same).
func (d kueueDecision) flavor() string {
	if f := d.flavors[keys.ResourceGPU]; f != "" {
		return f
	}
	for _, r := range slices.Sorted(maps.Keys(d.flavors)) {
		return d.flavors[r]
	}
	return ""
}

// create makes the class's example workload in ns under name: the tree's
// example of the class's kind, a StatefulSet's or Deployment's pods
// selected by their own label (runLabel) beside the example's, which its
// anti-affinity and spreads select. tweak, if not nil, edits the
// workload's metadata and pod template (preemption's priorities).
func (fr *fleetRun) create(ns, class, name string, tweak func(*metav1.ObjectMeta, *corev1.PodTemplateSpec)) (*submission, error) {
	if tweak == nil {
		tweak = func(*metav1.ObjectMeta, *corev1.PodTemplateSpec) {}
	}
	kind := fr.res.Fleet.Class(class).Spec.Kind
	var doc []byte
	for _, d := range tree.Docs(fr.res.Tree[tree.ClassExample(class)]) {
		if k, err := tree.Kind(d); err == nil && k == kind {
			doc = d
		}
	}
	if doc == nil {
		return nil, fmt.Errorf("class %s's example has no %s", class, kind)
	}
	s := &submission{kind: kind, ns: ns, name: name, sel: runLabel + "=" + name, decisions: map[string]kueueDecision{}}
	own := map[string]string{runLabel: name}
	meta := metav1.ObjectMeta{}
	var err error
	switch kind {
	case keys.KindJob:
		var j batchv1.Job
		if err := tree.Decode(doc, &j); err != nil {
			return nil, err
		}
		j.Namespace, j.Name, s.sel = ns, name, jobNameLabel+"="+name
		s.pods = int(ptrOr(j.Spec.Parallelism, 1))
		tweak(&j.ObjectMeta, &j.Spec.Template)
		var got *batchv1.Job
		if got, err = fr.cp.Client.BatchV1().Jobs(ns).Create(fr.ctx, &j, metav1.CreateOptions{}); err == nil {
			meta = got.ObjectMeta
		}
	case keys.KindStatefulSet:
		var w appsv1.StatefulSet
		if err := tree.Decode(doc, &w); err != nil {
			return nil, err
		}
		w.Namespace, w.Name, w.Spec.ServiceName = ns, name, name
		w.Spec.Selector = &metav1.LabelSelector{MatchLabels: own}
		w.Spec.Template.Labels = withOwn(w.Spec.Template.Labels, name)
		s.pods = int(ptrOr(w.Spec.Replicas, 1))
		tweak(&w.ObjectMeta, &w.Spec.Template)
		var got *appsv1.StatefulSet
		if got, err = fr.cp.Client.AppsV1().StatefulSets(ns).Create(fr.ctx, &w, metav1.CreateOptions{}); err == nil {
			meta = got.ObjectMeta
		}
	case keys.KindDeployment:
		var w appsv1.Deployment
		if err := tree.Decode(doc, &w); err != nil {
			return nil, err
		}
		w.Namespace, w.Name = ns, name
		w.Spec.Selector = &metav1.LabelSelector{MatchLabels: own}
		w.Spec.Template.Labels = withOwn(w.Spec.Template.Labels, name)
		s.pods = int(ptrOr(w.Spec.Replicas, 1))
		tweak(&w.ObjectMeta, &w.Spec.Template)
		var got *appsv1.Deployment
		if got, err = fr.cp.Client.AppsV1().Deployments(ns).Create(fr.ctx, &w, metav1.CreateOptions{}); err == nil {
			meta = got.ObjectMeta
		}
	default:
		if !mlAdmitted(kind) {
			return nil, fmt.Errorf("class %s: Kueue queues no %s here", class, kind)
		}
		if err := fr.createML(s, kind, doc); err != nil {
			return nil, fmt.Errorf("create %s: %w", kind, err)
		}
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", kind, err)
	}
	s.uid = meta.UID
	return s, nil
}

func withOwn(labels map[string]string, name string) map[string]string {
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	out[runLabel] = name
	return out
}

func ptrOr(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

// await waits until Kueue has decided on every Workload of s: reserved
// quota, or said why it cannot. A Deployment's replicas are decided one
// by one, and one pending may yet be admitted: unless enough says the
// decisions are complete, they must hold still for a few seconds.
func (fr *fleetRun) await(dyn dynamic.Interface, s *submission, enough func(*submission) bool) error {
	var last map[string]kueueDecision
	still := time.Now()
	err := poll(60*time.Second, 200*time.Millisecond, func() (bool, error) {
		cur, complete, err := fr.decisions(dyn, s)
		if err != nil || !complete {
			return false, err
		}
		s.decisions = cur
		if enough == nil || enough(s) {
			return true, nil
		}
		if !maps.EqualFunc(cur, last, func(a, b kueueDecision) bool { return a.String() == b.String() }) {
			last, still = cur, time.Now()
		}
		return time.Since(still) > 3*time.Second, nil
	})
	if err != nil {
		return fmt.Errorf("Kueue made no decision on %s %s/%s: %w (%d decided)\n%s", s.kind, s.ns, s.name, err, len(s.decisions), fr.kueue.p.grep(20, s.name))
	}
	return nil
}

// decisions reads Kueue's decision on each Workload of s, by the key
// submission.decisions uses; complete is false while a Workload is
// missing or undecided.
func (fr *fleetRun) decisions(dyn dynamic.Interface, s *submission) (map[string]kueueDecision, bool, error) {
	list, err := dyn.Resource(workloads).Namespace(s.ns).List(fr.ctx, metav1.ListOptions{})
	if err != nil {
		return nil, false, err
	}
	byOwner := map[string]*unstructured.Unstructured{}
	for i := range list.Items {
		for _, o := range list.Items[i].GetOwnerReferences() {
			byOwner[string(o.UID)] = &list.Items[i]
		}
	}
	cur := map[string]kueueDecision{}
	owners := map[string]types.UID{"": s.uid}
	if s.kind == keys.KindDeployment {
		pods, err := fr.cp.Client.CoreV1().Pods(s.ns).List(fr.ctx, metav1.ListOptions{LabelSelector: s.sel})
		if err != nil {
			return nil, false, err
		}
		if len(pods.Items) < s.pods {
			return nil, false, nil
		}
		owners = map[string]types.UID{}
		for _, p := range pods.Items {
			owners[p.Name] = p.UID
		}
	}
	for key, uid := range owners {
		w := byOwner[string(uid)]
		if w == nil {
			return nil, false, nil
		}
		d, ok := decisionOf(w)
		if !ok {
			return nil, false, nil
		}
		cur[key] = d
	}
	return cur, true, nil
}

// owners are the objects whose FailedCreate events are about s's pods:
// a Deployment's ReplicaSets, else the workload itself.
func (fr *fleetRun) owners(kind, ns, sel string, uid types.UID) func() (map[types.UID]bool, error) {
	return func() (map[types.UID]bool, error) {
		if kind != keys.KindDeployment {
			return map[types.UID]bool{uid: true}, nil
		}
		l, err := fr.cp.Client.AppsV1().ReplicaSets(ns).List(fr.ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return nil, err
		}
		out := map[types.UID]bool{}
		for _, rs := range l.Items {
			out[rs.UID] = true
		}
		return out, nil
	}
}
