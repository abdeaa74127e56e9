package kubesched

import (
	"context"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	schedcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// DRA is what kube-scheduler's DynamicResources plugin reads beside the
// pod and the nodes: the DeviceClasses, the nodes' ResourceSlices, and the
// ResourceClaimTemplates the pod's claims are made from.
type DRA struct {
	Classes   []*resourcev1.DeviceClass
	Slices    []*resourcev1.ResourceSlice
	Templates []*resourcev1.ResourceClaimTemplate
}

// FilterDRA is Filter for a pod with ResourceClaims: its claims are made
// from their templates as kube-controller-manager's resourceclaim
// controller makes them (a claim per pod claim, owned by the pod, named in
// the pod's status), and the default profile is built as scheduler.New
// builds it with DRA on (v1.35.4): an assume cache of the claims, a
// ResourceSlice tracker and NewDRAManager, over a fake clientset holding
// them all. Each call builds its own framework: DRA pods are few.
func FilterDRA(pod *v1.Pod, nodes []*v1.Node, existing []*v1.Pod, dra DRA) (map[string][]string, error) {
	pod = defaultPod(pod)
	if pod.UID == "" {
		pod.UID = types.UID(pod.Namespace + "/" + pod.Name)
	}
	outNodes, err := defaultNodes(nodes)
	if err != nil {
		return nil, err
	}
	if len(existing) > 0 {
		return nil, fmt.Errorf("FilterDRA: existing pods are not supported")
	}
	objs := namespaces(pod, nil)
	for _, c := range dra.Classes {
		objs = append(objs, c.DeepCopy())
	}
	for _, s := range dra.Slices {
		objs = append(objs, s.DeepCopy())
	}
	claims, err := makeClaims(pod, dra.Templates)
	if err != nil {
		return nil, err
	}
	for _, c := range claims {
		objs = append(objs, c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	snapshot := schedcache.NewSnapshot(nil, outNodes)
	fw, err := newDRAFramework(ctx, nil, snapshot, objs, draObjects{len(dra.Slices), len(claims)})
	if err != nil {
		return nil, err
	}
	out, err := runFilter(ctx, fw, snapshot, pod, outNodes)
	for _, rs := range out {
		timedOut(rs)
	}
	return out, err
}

// reasonTimedOut is the DynamicResources Filter's reason when its
// allocator is still searching at the filter timeout
// (plugins/dynamicresources/dynamicresources.go, Filter): it searches
// every subset of the matching devices before it gives up on a count they
// cannot meet, which for a claim of 17 of a node's 16 MIG slices outlasts
// the timeout. The node is refused either way; which words say so depends
// on how long the search runs, which the checker, refusing such a node
// before any search (sched.Claims, matches), does not know. So the
// comparisons read it as the allocator's own refusal.
const reasonTimedOut = "timed out trying to allocate devices"

// filterTimeout is the Filter's timeout here (DynamicResourcesArgs;
// 10 s by default): each such node would otherwise cost 10 s. gpufleet's
// claims allocate greedily where they fit, in milliseconds.
const filterTimeout = 2 * time.Second

// timedOut replaces reasonTimedOut in rs with the allocator's refusal.
func timedOut(rs []string) {
	for i, r := range rs {
		if r == reasonTimedOut {
			rs[i] = sched.ErrReasonClaims
		}
	}
}

// withFilterTimeout is p with the DynamicResources Filter's timeout set to
// filterTimeout.
func withFilterTimeout(p *config.KubeSchedulerProfile) *config.KubeSchedulerProfile {
	cp := *p
	cp.PluginConfig = slices.Clone(p.PluginConfig)
	for i, pc := range cp.PluginConfig {
		if args, ok := pc.Args.(*config.DynamicResourcesArgs); ok {
			a := *args
			a.FilterTimeout = &metav1.Duration{Duration: filterTimeout}
			cp.PluginConfig[i].Args = &a
		}
	}
	return &cp
}

// makeClaims makes the pod's claims from their templates, as the
// resourceclaim controller does (pkg/controller/resourceclaim: a claim per
// pod claim with a template, owned by the pod, its name in the pod's
// status.resourceClaimStatuses).
func makeClaims(pod *v1.Pod, templates []*resourcev1.ResourceClaimTemplate) ([]*resourcev1.ResourceClaim, error) {
	byName := map[string]*resourcev1.ResourceClaimTemplate{}
	for _, t := range templates {
		if t.Namespace == pod.Namespace || t.Namespace == "" {
			byName[t.Name] = t
		}
	}
	var out []*resourcev1.ResourceClaim
	yes := true
	for _, pc := range pod.Spec.ResourceClaims {
		if pc.ResourceClaimTemplateName == nil {
			return nil, fmt.Errorf("pod %s: claim %s names no template", pod.Name, pc.Name)
		}
		t, ok := byName[*pc.ResourceClaimTemplateName]
		if !ok {
			return nil, fmt.Errorf("pod %s: no ResourceClaimTemplate %s", pod.Name, *pc.ResourceClaimTemplateName)
		}
		name := pod.Name + "-" + pc.Name
		out = append(out, &resourcev1.ResourceClaim{
			ObjectMeta: metav1.ObjectMeta{
				Name: name, Namespace: pod.Namespace, UID: types.UID(pod.Namespace + "/" + name),
				Annotations:     map[string]string{"resource.kubernetes.io/pod-claim-name": pc.Name},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: &yes, BlockOwnerDeletion: &yes}},
			},
			Spec: *t.Spec.Spec.DeepCopy(),
		})
		n := name
		pod.Status.ResourceClaimStatuses = append(pod.Status.ResourceClaimStatuses, v1.PodResourceClaimStatus{Name: pc.Name, ResourceClaimName: &n})
	}
	return out, nil
}

// newDRAManager is the DRA manager scheduler.New gives every framework
// from v1.36, when DynamicResourceAllocation is on: DynamicResources'
// PreFilter asks its DeviceClassResolver of every pod (DRAExtendedResource,
// beta and on: a pod's extended resource may be a DeviceClass's), so a
// framework without one panics on a pod that claims nothing. The
// extended-resource cache follows the DeviceClass informer, chained as
// addAllEventHandlers (pkg/scheduler/eventhandlers.go) chains it; synced
// reports when the cache has seen every DeviceClass (the informer reports
// synced before its handlers have run, and a pod scheduled before then
// finds no class for nvidia.com/gpu, which kube-scheduler would retry).
func newDRAManager(ctx context.Context, client *fake.Clientset, informerFactory informers.SharedInformerFactory) (m *dynamicresources.DefaultDRAManager, claimCache *assumecache.AssumeCache, tracker *resourceslicetracker.Tracker, synced func() bool, err error) {
	logger := klog.FromContext(ctx)
	claimCache = assumecache.NewAssumeCache(logger, informerFactory.Resource().V1().ResourceClaims().Informer(), "ResourceClaim", "", nil)
	tracker, err = resourceslicetracker.StartTracker(ctx, resourceslicetracker.Options{
		SliceInformer: informerFactory.Resource().V1().ResourceSlices(),
		KubeClient:    client,
	})
	if err != nil {
		return nil, nil, nil, nil, err
	}
	m = dynamicresources.NewDRAManager(ctx, claimCache, tracker, informerFactory)
	synced = func() bool { return true }
	if c, ok := m.DeviceClassResolver().(*extendedresourcecache.ExtendedResourceCache); ok && c != nil {
		reg, err := informerFactory.Resource().V1().DeviceClasses().Informer().AddEventHandler(c)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		synced = reg.HasSynced
	}
	return m, claimCache, tracker, synced, nil
}

// newDRAFramework is newFramework with the DRA manager scheduler.New
// gives the framework when DynamicResourceAllocation is on.
func newDRAFramework(ctx context.Context, profile *config.KubeSchedulerProfile, snapshot *schedcache.Snapshot, objs []runtime.Object, want draObjects) (framework.Framework, error) {
	registerMetrics.Do(metrics.Register)
	client := fake.NewClientset(objs...)
	informerFactory := informers.NewSharedInformerFactory(client, 0)
	draManager, claimCache, tracker, classesSynced, err := newDRAManager(ctx, client, informerFactory)
	if err != nil {
		return nil, err
	}
	if profile == nil {
		cfg, err := latest.Default()
		if err != nil {
			return nil, err
		}
		profile = &cfg.Profiles[0]
	}
	fw, err := frameworkruntime.NewFramework(ctx, plugins.NewInTreeRegistry(), withFilterTimeout(profile),
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(informerFactory),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithSharedCSIManager(nodevolumelimits.NewCSIManager(informerFactory.Storage().V1().CSINodes().Lister())),
		frameworkruntime.WithSharedDRAManager(draManager),
	)
	if err != nil {
		return nil, err
	}
	informerFactory.Start(ctx.Done())
	if err := waitForCacheSync(informerFactory); err != nil {
		return nil, err
	}
	// The tracker and the assume cache fill from the informers' handlers,
	// which may run after the informers report synced.
	deadline := time.Now().Add(30 * time.Second)
	for {
		slices, err := tracker.ListPatchedResourceSlices()
		if err != nil {
			return nil, err
		}
		if tracker.HasSynced() && classesSynced() && len(slices) == want.slices && len(claimCache.List(nil)) == want.claims {
			return fw, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the DRA manager did not see %d slices and %d claims", want.slices, want.claims)
		}
		time.Sleep(time.Millisecond)
	}
}

// draObjects counts what the DRA manager must hold before a call.
type draObjects struct{ slices, claims int }

// ScheduleDRA is Schedule for pods with ResourceClaims, under profile
// (nil: the default), on a framework of their own with the DRA manager:
// each pod's claims are made from the templates as the resourceclaim
// controller makes them, and DynamicResources' Reserve keeps each
// cycle's allocation in flight in the manager, so the next pod's
// allocator counts those devices as taken, as in kube-scheduler.
func ScheduleDRA(profile *config.KubeSchedulerProfile, pods []*v1.Pod, nodes []*v1.Node, dra DRA, less func(a, b string) bool) (*Placement, error) {
	if len(pods) == 0 || len(nodes) == 0 {
		return nil, fmt.Errorf("no pods or no nodes")
	}
	outNodes, err := defaultNodes(nodes)
	if err != nil {
		return nil, err
	}
	objs := namespaces(pods[0], nil)
	for _, c := range dra.Classes {
		objs = append(objs, c.DeepCopy())
	}
	for _, s := range dra.Slices {
		objs = append(objs, s.DeepCopy())
	}
	pending := make([]*v1.Pod, len(pods))
	claims := 0
	for i, p := range pods {
		p = defaultPod(p)
		p.Spec.NodeName = ""
		p.UID = types.UID(fmt.Sprintf("%s/%s", p.Namespace, p.Name)) // the cache's key
		cs, err := makeClaims(p, dra.Templates)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			objs = append(objs, c)
		}
		claims += len(cs)
		pending[i] = p
		// DefaultPreemption reads the preemptor back from the API server.
		objs = append(objs, p)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	snapshot := schedcache.NewEmptySnapshot()
	fw, err := newDRAFramework(ctx, profile, snapshot, objs, draObjects{len(dra.Slices), claims})
	if err != nil {
		return nil, err
	}
	pl, err := cycle(fw, snapshot, pending, outNodes, less)
	if pl != nil {
		for _, rs := range pl.Reasons {
			timedOut(rs)
		}
	}
	return pl, err
}
