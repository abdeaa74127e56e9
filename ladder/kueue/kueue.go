// Package kueuediff runs Kueue v0.19.2's own scheduler cache, snapshot and
// flavor assigner over the Kueue objects gpufleet writes, so that the
// checker's Kueue verdicts are judged by Kueue itself.
package kueuediff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	"sigs.k8s.io/kueue/pkg/controller/core/indexer"
	"sigs.k8s.io/kueue/pkg/controller/jobs/job"
	"sigs.k8s.io/kueue/pkg/controller/jobs/pod"
	"sigs.k8s.io/kueue/pkg/dra"
	"sigs.k8s.io/kueue/pkg/resources"
	"sigs.k8s.io/kueue/pkg/scheduler/flavorassigner"
	"sigs.k8s.io/kueue/pkg/scheduler/preemption"
	preemptexpectations "sigs.k8s.io/kueue/pkg/scheduler/preemption/expectations"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing"
	"sigs.k8s.io/kueue/pkg/workload"

	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
	"github.com/gpufleet/gpufleet/internal/crdtest"
)

// Kueue is Kueue's scheduler state for one tree, on an empty cluster.
type Kueue struct {
	client    client.Client
	cache     *schdcache.Cache
	snapshot  *schdcache.Snapshot
	preemptor *preemption.Preemptor
	// Topologies are the tree's Topologies' levels, widest first, by name.
	Topologies map[string][]string
	// Domains are the nodes per domain each TAS flavor declares, by level
	// label (the flavor's keys.AnnotationTopologyDomains, which Kueue
	// ignores): the labellings honour them.
	Domains map[string]map[string]int64
	// nodes are the names of the nodes in Kueue's TAS cache (SyncNodes),
	// and standing the nodes themselves.
	nodes    []string
	standing []*corev1.Node
	// draMapper is Kueue's mapping of DeviceClasses to the resources it
	// counts their devices as, from the tree's kueue/dra-config.yaml;
	// nil for a tree without.
	draMapper *dra.ResourceMapper
}

// Load builds Kueue's scheduler cache from the tree's ResourceFlavors,
// Topologies, Cohorts and ClusterQueues, each defaulted by its CRD as
// kube-apiserver stores it, and takes the snapshot Kueue's scheduler takes
// every cycle. Its TAS cache holds no nodes: SyncNodes adds them.
func Load(ctx context.Context, crds *crdtest.Validator, tr tree.Tree) (*Kueue, error) {
	// The tenants' LimitRanges, which Kueue applies to a Workload's pods
	// (workload.AdjustResources) before it counts their requests.
	var limits []client.Object
	for _, p := range tr.Paths() {
		if path.Base(p) != "limitranges.yaml" {
			continue
		}
		for _, doc := range tree.Docs(tr[p]) {
			lr := &corev1.LimitRange{}
			if err := tree.Decode(doc, lr); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			limits = append(limits, lr)
		}
	}
	// The tenants' ResourceClaimTemplates, which Kueue's pkg/dra reads to
	// count a DRA class's devices.
	for _, p := range tr.Paths() {
		if path.Base(p) != tree.ResourceClaimTemplatesFile {
			continue
		}
		for _, doc := range tree.Docs(tr[p]) {
			rct := &resourcev1.ResourceClaimTemplate{}
			if err := tree.Decode(doc, rct); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			limits = append(limits, rct)
		}
	}
	// The DeviceClasses of a cluster that runs the tree, which Kueue's
	// extended-resource accounting looks up by spec.extendedResourceName:
	// the driver chart's, where the tree installs it (the checker's copy,
	// which e2e holds to the chart), and the tree's own.
	if _, ok := tr[dradriver.ValuesPath]; ok {
		for _, dc := range dradriver.DeviceClasses() {
			limits = append(limits, dc)
		}
	}
	for _, doc := range tree.Docs(tr[tree.DRADeviceClassesPath]) {
		dc := &resourcev1.DeviceClass{}
		if err := tree.Decode(doc, dc); err != nil {
			return nil, fmt.Errorf("%s: %w", tree.DRADeviceClassesPath, err)
		}
		limits = append(limits, dc)
	}
	mapper, err := draMapper(tr)
	if err != nil {
		return nil, err
	}
	var flavors []kueue.ResourceFlavor
	if err := decode(crds, tr[tree.KueueFlavorsPath], &flavors); err != nil {
		return nil, err
	}
	// The client holds the ResourceFlavors too, which pkg/podset
	// FromAssignment reads to pin an admitted workload's pods.
	objs := limits
	for i := range flavors {
		objs = append(objs, &flavors[i])
	}
	cl := utiltesting.NewClientBuilder().
		WithIndex(&corev1.LimitRange{}, indexer.LimitRangeHasContainerOrPodType, indexer.IndexLimitRangeHasContainerOrPodType).
		WithIndex(&resourcev1.DeviceClass{}, indexer.DeviceClassExtendedResourceNameIndex, indexer.IndexDeviceClassExtendedResourceName).
		WithObjects(objs...).Build()
	cache := schdcache.New(cl)
	domains := map[string]map[string]int64{}
	for i := range flavors {
		cache.AddOrUpdateResourceFlavor(klog.Background(), &flavors[i])
		d, err := kueuemodel.ParseDomains(flavors[i].Annotations[keys.AnnotationTopologyDomains])
		if err != nil {
			return nil, fmt.Errorf("ResourceFlavor %s: %w", flavors[i].Name, err)
		}
		domains[flavors[i].Name] = d
	}
	// The Topologies, which make a flavor naming one a TAS flavor (its
	// TASFlavorCache); a ClusterQueue with a TAS flavor whose Topology is
	// missing stays out of the snapshot (inactiveCQReasonTASUsageNotSynced).
	var topologies []kueue.Topology
	if err := decode(crds, tr[tree.KueueTopologiesPath], &topologies); err != nil {
		return nil, err
	}
	levels := map[string][]string{}
	for i := range topologies {
		cache.AddOrUpdateTopology(klog.Background(), &topologies[i])
		for _, l := range topologies[i].Spec.Levels {
			levels[topologies[i].Name] = append(levels[topologies[i].Name], l.NodeLabel)
		}
	}
	var cohorts []kueue.Cohort
	if err := decode(crds, tr[tree.KueueCohortsPath], &cohorts); err != nil {
		return nil, err
	}
	for i := range cohorts {
		if err := cache.AddOrUpdateCohort(&cohorts[i]); err != nil {
			return nil, fmt.Errorf("Cohort %s: %w", cohorts[i].Name, err)
		}
	}
	var cqs []kueue.ClusterQueue
	if err := decode(crds, tr[tree.KueueQueuesPath], &cqs); err != nil {
		return nil, err
	}
	for i := range cqs {
		if err := cache.AddClusterQueue(ctx, &cqs[i]); err != nil {
			return nil, fmt.Errorf("ClusterQueue %s: %w", cqs[i].Name, err)
		}
	}
	snap, err := cache.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	p := preemption.New(cl, workload.Ordering{}, &utiltesting.EventRecorder{}, nil, false,
		clocktesting.NewFakeClock(time.Unix(0, 0)), nil, preemptexpectations.New(), nil)
	return &Kueue{client: cl, cache: cache, snapshot: snap, preemptor: p, Topologies: levels, Domains: domains, draMapper: mapper}, nil
}

// draMapper is the ResourceMapper Kueue's manager builds from its
// Configuration's deviceClassMappings (PopulateFromConfiguration), here
// from the tree's fragment of it; nil for none.
func draMapper(tr tree.Tree) (*dra.ResourceMapper, error) {
	raw, ok := tr[tree.KueueDRAConfigPath]
	if !ok {
		return nil, nil
	}
	var cfg configapi.Configuration
	if err := tree.Decode(tree.Docs(raw)[0], &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", tree.KueueDRAConfigPath, err)
	}
	if cfg.Resources == nil {
		return nil, nil
	}
	m := dra.NewResourceMapper()
	if err := m.PopulateFromConfiguration(cfg.Resources.DeviceClassMappings); err != nil {
		return nil, fmt.Errorf("%s: %w", tree.KueueDRAConfigPath, err)
	}
	return m, nil
}

// SyncNodes makes nodes the ones Kueue's TAS cache holds, as its node
// controller syncs them (TASCache().SyncNode: only Ready, schedulable
// nodes are kept), deleting those an earlier call synced, and takes the
// snapshot again: TAS places pods only on the nodes of the snapshot's
// topology trees. The nodes' labels, taints and allocatable are shared
// with the cache and must not change afterwards.
func (k *Kueue) SyncNodes(ctx context.Context, nodes []*corev1.Node) error {
	tas := k.cache.TASCache()
	keep := map[string]bool{}
	for _, n := range nodes {
		keep[n.Name] = true
	}
	for _, name := range k.nodes {
		if !keep[name] {
			tas.DeleteNodeByName(name)
		}
	}
	k.nodes, k.standing = k.nodes[:0], nodes
	for _, n := range nodes {
		tas.SyncNode(n)
		k.nodes = append(k.nodes, n.Name)
	}
	snap, err := k.cache.Snapshot(ctx)
	if err != nil {
		return err
	}
	k.snapshot = snap
	return nil
}

// Assignment is what Kueue's flavor assigner decided for one workload.
type Assignment struct {
	Mode    string                         // Fit, Preempt or NoFit
	Flavors map[corev1.ResourceName]string // per requested resource
	Message string
}

// Assign submits a Job to ClusterQueue cq as Kueue's Job integration sees
// it (its PodSets) and runs the flavor assigner the scheduler runs.
func (k *Kueue) Assign(ctx context.Context, cq string, j *batchv1.Job) (Assignment, error) {
	podSets, err := JobPodSets(ctx, j)
	if err != nil {
		return Assignment{}, err
	}
	return k.AssignPodSets(ctx, cq, j.Namespace, "job-"+j.Name, podSets)
}

// JobPodSets are the PodSets Kueue's Job integration makes of a Job.
func JobPodSets(ctx context.Context, j *batchv1.Job) ([]kueue.PodSet, error) {
	return (*job.Job)(j).PodSets(ctx, nil)
}

// AssignPodSets submits a workload of podSets, named name in namespace,
// to ClusterQueue cq, and runs the flavor assigner the scheduler runs.
func (k *Kueue) AssignPodSets(ctx context.Context, cq, namespace, name string, podSets []kueue.PodSet) (Assignment, error) {
	a, _, err := k.assign(ctx, cq, namespace, name, podSets)
	if err != nil {
		return Assignment{}, err
	}
	out := Assignment{Mode: a.RepresentativeMode().String(), Message: a.Message(), Flavors: map[corev1.ResourceName]string{}}
	for _, ps := range a.PodSets {
		for r, f := range ps.Flavors {
			out.Flavors[r] = string(f.Name)
		}
	}
	return out, nil
}

// assign is AssignPodSets with Kueue's own assignment, and the Workload
// it was made for, its requests adjusted by the namespace's LimitRanges.
func (k *Kueue) assign(ctx context.Context, cq, namespace, name string, podSets []kueue.PodSet) (*flavorassigner.Assignment, *kueue.Workload, error) {
	wl := &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       kueue.WorkloadSpec{PodSets: podSets, QueueName: "gpufleet"},
	}
	workload.AdjustResources(ctx, k.client, wl)
	// A workload whose pods claim devices: the workload controller's
	// DRA path (pkg/controller/core, KueueDRAIntegration) counts its
	// claims' templates through the mapper before the scheduler sees it.
	var opts []workload.InfoOption
	if k.draMapper != nil && claims(wl) {
		res, errs := dra.GetResourceRequestsForResourceClaimTemplates(ctx, k.client, dra.NewResourceSliceCache(k.client), k.draMapper, wl)
		if len(errs) > 0 {
			return nil, nil, fmt.Errorf("Kueue's DRA accounting: %w", errs.ToAggregate())
		}
		opts = append(opts, workload.WithPreprocessedDRAResources(res, nil))
	}
	info := workload.NewInfo(wl, opts...)
	info.ClusterQueue = kueue.ClusterQueueReference(cq)
	snapCQ := k.snapshot.ClusterQueue(info.ClusterQueue)
	if snapCQ == nil {
		return nil, nil, fmt.Errorf("ClusterQueue %s not in Kueue's snapshot", cq)
	}
	fa := flavorassigner.New(info, snapCQ, k.snapshot.ResourceFlavors, false,
		preemption.NewOracle(k.preemptor, k.snapshot), nil, "", resources.NewResourceFormatter(), 0)
	a := fa.Assign(ctx, nil)
	return &a, wl, nil
}

// Workload is a queued class's workload as Kueue's integration for its
// kind sees it: its PodSets (one), and the pod template its pods are made
// from.
type Workload struct {
	Kind string
	// Name is the Workload's; Pods the class's replicas, or a Job's
	// parallelism.
	Name     string
	Pods     int32
	PodSets  []kueue.PodSet
	Template corev1.PodTemplateSpec
	// Job is the Job, for a Job.
	Job *batchv1.Job
}

// ClassWorkload reads the class's example workload, in namespace, and
// builds the PodSets Kueue's integration for its kind builds: the Job
// integration's for a Job; for a StatefulSet or a Deployment, the pod
// integration's of one of its pods.
func ClassWorkload(ctx context.Context, tr tree.Tree, class, namespace string) (*Workload, error) {
	docs := tree.Docs(tr[tree.ClassExample(class)])
	if len(docs) == 0 {
		return nil, fmt.Errorf("no example workload")
	}
	kind, err := tree.Kind(docs[0])
	if err != nil {
		return nil, err
	}
	w := &Workload{Kind: kind}
	switch kind {
	case keys.KindJob:
		var j batchv1.Job
		if err := tree.Decode(docs[0], &j); err != nil {
			return nil, err
		}
		j.Namespace = namespace
		if w.PodSets, err = JobPodSets(ctx, &j); err != nil {
			return nil, err
		}
		w.Pods, w.Template, w.Name, w.Job = w.PodSets[0].Count, j.Spec.Template, "job-"+j.Name, &j
	case keys.KindStatefulSet:
		var s appsv1.StatefulSet
		if err := tree.Decode(docs[0], &s); err != nil {
			return nil, err
		}
		w.Pods, w.Template, w.Name = *s.Spec.Replicas, s.Spec.Template, "sts-"+s.Name
		if w.PodSets, err = podPodSets(ctx, s.Spec.Template, namespace); err != nil {
			return nil, err
		}
		// v0.19.2's StatefulSet integration makes the StatefulSet's pods
		// one pod group admitted fast: its pod reconciler
		// (pkg/controller/jobs/statefulset/statefulset_pod_reconciler.go)
		// sets the group's total count annotation to the replica count and
		// the fast-admission annotation, and the pod integration's
		// constructGroupPodSetsFast (pkg/controller/jobs/pod/pod_controller.go)
		// then builds exactly one PodSet, from one pod, of that count.
		w.PodSets[0].Count = w.Pods
	case keys.KindDeployment:
		var d appsv1.Deployment
		if err := tree.Decode(docs[0], &d); err != nil {
			return nil, err
		}
		// The pod integration admits each of a Deployment's pods as a
		// workload of its own: one PodSet of one pod.
		w.Pods, w.Template, w.Name = *d.Spec.Replicas, d.Spec.Template, "deploy-"+d.Name
		if w.PodSets, err = podPodSets(ctx, d.Spec.Template, namespace); err != nil {
			return nil, err
		}
	case keys.KindJobSet, keys.KindLeaderWorkerSet, keys.KindRayCluster, keys.KindRayJob, keys.KindPyTorchJob, keys.KindTrainJob:
		crds, err := mlCRDs()
		if err != nil {
			return nil, err
		}
		if kind == keys.KindTrainJob {
			w.PodSets, err = trainJobPodSets(ctx, crds, docs[0], tr[tree.TrainingRuntimesPath], namespace)
		} else {
			w.PodSets, err = roledPodSets(ctx, crds, kind, docs[0], namespace)
		}
		if err != nil {
			return nil, err
		}
		w.Name, w.Template = strings.ToLower(kind)+"-"+class, w.PodSets[0].Template
		for _, ps := range w.PodSets {
			w.Pods += ps.Count
		}
		return w, nil
	default:
		return nil, fmt.Errorf("a queued %s: Kueue integrations here are the Job, StatefulSet, pod (Deployment) and ML kinds' ones", kind)
	}
	if len(w.PodSets) != 1 {
		return nil, fmt.Errorf("%d PodSets, want 1", len(w.PodSets))
	}
	return w, nil
}

// podPodSets are the PodSets Kueue's pod integration makes of one pod of
// the template, in namespace.
func podPodSets(ctx context.Context, tmpl corev1.PodTemplateSpec, namespace string) ([]kueue.PodSet, error) {
	p := &corev1.Pod{ObjectMeta: *tmpl.ObjectMeta.DeepCopy(), Spec: *tmpl.Spec.DeepCopy()}
	p.Namespace = namespace
	return pod.FromObject(p).PodSets(ctx, nil)
}

// decode reads a YAML stream of the tree, defaults each object with its
// CRD and decodes it strictly into Kueue's own types.
func decode[T any](crds *crdtest.Validator, raw []byte, out *[]T) error {
	for _, doc := range tree.Docs(raw) {
		js, err := crds.Default(doc)
		if err != nil {
			return err
		}
		var v T
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%s: %w", doc, err)
		}
		*out = append(*out, v)
	}
	return nil
}

// claims reports whether a pod of the workload has ResourceClaims.
func claims(wl *kueue.Workload) bool {
	for _, ps := range wl.Spec.PodSets {
		if len(ps.Template.Spec.ResourceClaims) > 0 {
			return true
		}
	}
	return false
}

// DRARequests are what Kueue's DRA accounting (pkg/dra
// GetResourceRequestsForResourceClaimTemplates, as the workload controller
// runs it) counts for one pod of each PodSet: its claims' devices, each as
// the resource its DeviceClass maps to. Nil for a tree without mappings.
func (k *Kueue) DRARequests(ctx context.Context, namespace, name string, podSets []kueue.PodSet) (map[kueue.PodSetReference]corev1.ResourceList, error) {
	if k.draMapper == nil {
		return nil, nil
	}
	wl := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Spec: kueue.WorkloadSpec{PodSets: podSets}}
	res, errs := dra.GetResourceRequestsForResourceClaimTemplates(ctx, k.client, dra.NewResourceSliceCache(k.client), k.draMapper, wl)
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return res, nil
}

// ExtendedRequests is what Kueue's extended-resource DRA accounting
// (KueueDRAIntegrationExtendedResource, beta and on in v0.19) makes of the
// pod sets' requests of extended resources a DeviceClass names
// (pkg/dra ResolveExtendedResourceQuota, as its workload controller runs
// it): the logical resources its deviceClassMappings count them as, and
// the extended resources they replace (workload.NewInfo removes those,
// then adds these). Nil for a tree without mappings.
func (k *Kueue) ExtendedRequests(ctx context.Context, namespace, name string, podSets []kueue.PodSet) (map[kueue.PodSetReference]corev1.ResourceList, map[kueue.PodSetReference]sets.Set[corev1.ResourceName], error) {
	if k.draMapper == nil {
		return nil, nil, nil
	}
	wl := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Spec: kueue.WorkloadSpec{PodSets: podSets}}
	add, replaced, errs := dra.ResolveExtendedResourceQuota(ctx, k.client, k.draMapper, wl)
	if len(errs) > 0 {
		return nil, nil, errs.ToAggregate()
	}
	return add, replaced, nil
}

// forget takes the Workloads a test assumed in Kueue's cache out again
// and takes the snapshot anew, as if they had never been admitted.
func (k *Kueue) forget(ctx context.Context, assumed []*kueue.Workload) {
	for _, wl := range assumed {
		_ = k.cache.DeleteWorkload(klog.Background(), workload.Key(wl))
	}
	if s, err := k.cache.Snapshot(ctx); err == nil {
		k.snapshot = s
	}
}
