package e2e

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// mlResources are the ML kinds' resources, as their CRDs (installed from
// the pinned modules) serve them.
var mlResources = map[string]schema.GroupVersionResource{
	keys.KindJobSet:          {Group: "jobset.x-k8s.io", Version: "v1alpha2", Resource: "jobsets"},
	keys.KindLeaderWorkerSet: {Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"},
	keys.KindRayJob:          {Group: "ray.io", Version: "v1", Resource: "rayjobs"},
	keys.KindRayCluster:      {Group: "ray.io", Version: "v1", Resource: "rayclusters"},
	keys.KindPyTorchJob:      {Group: "kubeflow.org", Version: "v1", Resource: "pytorchjobs"},
	keys.KindTrainJob:        {Group: "trainer.kubeflow.org", Version: "v1alpha1", Resource: "trainjobs"},
}

// mlKind reports whether the row is an ML kind's (a JobSet's,
// LeaderWorkerSet's, Ray cluster's, PyTorchJob's or TrainJob's, or one of
// its roles'): the class-by-class placement leaves them out. A queued
// one's pods are judged by admission (mlAdmission): the JobSet,
// LeaderWorkerSet and Trainer controllers run (mlcontrollers.go), Ray's
// and the training-operator's do not (mlemulate.go). The kind
// decides it, whether or not the class is queued (an unqueued class's row
// has no PodSets).
func mlKind(c *sched.Class) bool {
	return c != nil && (c.Of != "" || len(c.PodSets) > 0 || slices.Contains(keys.RoleKinds, c.Kind))
}

// mlAdmitted are the ML kinds whose Workloads the running Kueue's own
// integration makes: jobset, rayjob, raycluster, kubeflow's pytorchjob and
// Trainer's trainjob (its PodSets built from the tree's
// ClusterTrainingRuntime) from the stored object, leaderworkerset one per
// group from the object too (its pods, which the LWS controller makes,
// are then admitted as that group's pod group).
func mlAdmitted(kind string) bool {
	return mlResources[kind] != (schema.GroupVersionResource{})
}

// createML stores the class's example of an ML kind in ns under name.
func (fr *fleetRun) createML(s *submission, kind string, doc []byte) error {
	var o map[string]any
	if err := yaml.Unmarshal(doc, &o); err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: o}
	u.SetNamespace(s.ns)
	u.SetName(s.name)
	if kind == keys.KindLeaderWorkerSet {
		// One group: Kueue admits each group as a Workload of its own,
		// and the checker's unit is one group.
		if err := unstructured.SetNestedField(u.Object, int64(1), "spec", "replicas"); err != nil {
			return err
		}
	}
	dyn, err := dynamic.NewForConfig(fr.cp.Config)
	if err != nil {
		return err
	}
	got, err := dyn.Resource(mlResources[kind]).Namespace(s.ns).Create(fr.ctx, u, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	s.uid = got.GetUID()
	return nil
}

// mlAdmission submits a queued ML class's example to the running Kueue
// and holds its decision on the one Workload its integration makes to the
// checker's unit: admitted whole or not at all, each PodSet to the flavor
// the checker assigns it. The pods of an admitted one, made by the kind's
// controller where it runs (mlPodsMade) or by the harness from its pod
// templates where it does not (mlPodsEmulated), are then held to the unit
// too (mlPods); the fleet's nodes stand for them.
func (fr *fleetRun) mlAdmission(dyn dynamic.Interface, tenant, ns, class string, u *check.Unit) {
	fr.ensureNodes(fr.kueueSize(class))
	s, err := fr.submitAs(dyn, ns, class, strings.TrimSuffix(class[:min(len(class), 40)], "-")+"-kq", nil)
	if err != nil {
		fr.fail("tenant %s, class %s: %v", tenant, class, err)
		if s != nil {
			fr.clearML(dyn, s)
		}
		return
	}
	defer fr.clearML(dyn, s)
	fr.count(s)
	got := s.decisions[""]
	want := map[string]string{}
	for _, ps := range u.PodSets {
		if ps.Flavor != "" {
			want[ps.Name] = ps.Flavor
		}
	}
	admitted := len(u.PodSets) > 0 && u.PodSets[len(u.PodSets)-1].Flavor != ""
	fr.t.Logf("tenant %s, class %s (%s %s in %s): Kueue %s, pod sets %v", tenant, class, s.kind, s.name, ns, got, got.podSets)
	if got.admitted != admitted || admitted && !maps.Equal(got.podSets, want) {
		fr.fail("tenant %s, class %s: the running Kueue and the checker disagree on the %s's pod sets:\n  checker: admitted %v, %v\n  Kueue:   %s, %v", tenant, class, s.kind, admitted, want, got, got.podSets)
	} else if admitted && (mlPodsMade(s.kind) || mlPodsEmulated(s.kind)) {
		fr.mlPods(dyn, tenant, class, s, u)
	}
	// The deliberate bug: a checker that gave every role its first
	// role's flavor (one flavor per workload, as for a Job).
	if admitted && len(u.PodSets) > 1 {
		bug := map[string]string{}
		for name := range want {
			bug[name] = want[u.PodSets[0].Name]
		}
		fr.st.MLCompared++
		if !maps.Equal(got.podSets, bug) {
			fr.st.MLCaught++
		}
	}
}

// clearML deletes the submitted object, what its controller made, and
// every Workload in its namespace.
func (fr *fleetRun) clearML(dyn dynamic.Interface, s *submission) {
	err := dyn.Resource(mlResources[s.kind]).Namespace(s.ns).Delete(fr.ctx, s.name, metav1.DeleteOptions{})
	if err := errors.Join(err, fr.clearMLMade(dyn, s.kind, s.ns, s.name), clearWorkloads(fr, dyn, s.ns)); err != nil {
		fr.fail("%v", err)
	}
}

// clearMLExamples deletes the tree's own examples of the ML kinds in ns,
// which the running Kueue's integrations admit like any workload: the
// TrainJobs first, so that Trainer makes no JobSet of one after the
// JobSets went.
func clearMLExamples(fr *fleetRun, dyn dynamic.Interface, ns string) error {
	var errs []error
	others := slices.DeleteFunc(slices.Sorted(maps.Keys(mlResources)), func(k string) bool { return k == keys.KindTrainJob })
	for _, k := range append([]string{keys.KindTrainJob}, others...) {
		errs = append(errs, dyn.Resource(mlResources[k]).Namespace(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{}, metav1.ListOptions{}))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("the ML kinds' examples: %w", err)
	}
	return nil
}
