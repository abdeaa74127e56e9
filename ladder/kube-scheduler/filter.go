// Package kubesched runs the real kube-scheduler's Filter phase in-process.
//
// It is the differential rung of the verification ladder
// (docs/architecture.md): gpufleet's own placement checker is compared
// against kube-scheduler v1.35.4, so this package deliberately adds no logic
// of its own. It builds the scheduler's
// default profile from the in-tree plugin registry, exactly as kube-scheduler
// does at startup, and drives it the way schedule_one.go's findNodesThatFitPod
// does, minus scoring, preemption and binding.
package kubesched

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	fwk "k8s.io/kube-scheduler/framework"
	corev1defaults "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	schedcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// Filter runs the default scheduler profile's PreFilter and Filter plugins (as
// kube-scheduler v1.35.4 builds them from the in-tree registry) for pod against
// every node, with existing pods already bound (their Spec.NodeName set), and
// returns, per node name, the reasons the node was rejected in kube-scheduler's
// own wording (the Status reasons, e.g. "node(s) had untolerated taint(s)",
// "Insufficient nvidia.com/gpu", "node(s) didn't match Pod's node
// affinity/selector", "Too many pods", "node(s) didn't match pod topology
// spread constraints", "node(s) didn't match pod anti-affinity rules"). A node
// that passes has an empty (nil) slice. A PreFilter rejection applies to every
// node.
//
// Like the real scheduler, Filter stops at the first plugin that rejects a
// node, so a node's reasons all come from one plugin (which may give several,
// e.g. "Insufficient cpu" and "Insufficient nvidia.com/gpu").
//
// The inputs are not modified: they are copied and given the API server's
// defaults first, because kube-scheduler only ever sees stored objects (for
// example, a container that sets only limits gets requests equal to them).
func Filter(pod *v1.Pod, nodes []*v1.Node, existing []*v1.Pod) (map[string][]string, error) {
	pod, nodes, existing, err := prepare(pod, nodes, existing)
	if err != nil {
		return nil, err
	}

	snapshot := schedcache.NewSnapshot(existing, nodes)
	f, err := filterFramework(pod, existing)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lister.snapshot = snapshot
	return runFilter(context.Background(), f.fw, snapshot, pod, nodes)
}

// runFilter runs fw's PreFilter and Filter plugins for pod on every node
// of the snapshot, as findNodesThatFitPod does.
func runFilter(ctx context.Context, fw framework.Framework, snapshot *schedcache.Snapshot, pod *v1.Pod, nodes []*v1.Node) (map[string][]string, error) {
	result := make(map[string][]string, len(nodes))
	state := framework.NewCycleState()

	// PreFilter. Like findNodesThatFitPod, a rejection here is every node's
	// status, and a PreFilterResult that names nodes rules the others out.
	preRes, status, pluginsWithNodes := fw.RunPreFilterPlugins(ctx, state, pod)
	if !status.IsSuccess() {
		if !status.IsRejected() {
			return nil, status.AsError()
		}
		for _, n := range nodes {
			result[n.Name] = status.Reasons()
		}
		return result, nil
	}

	// Filter, node by node. Sharing one CycleState across nodes is what the
	// scheduler does too: Filter plugins only read it.
	for _, n := range nodes {
		if !preRes.AllNodes() && !preRes.NodeNames.Has(n.Name) {
			// The scheduler's own wording for nodes a PreFilterResult excluded.
			result[n.Name] = []string{fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(pluginsWithNodes))}
			continue
		}
		nodeInfo, err := snapshot.Get(n.Name)
		if err != nil {
			return nil, err
		}
		status := fw.RunFilterPlugins(ctx, state, pod, nodeInfo)
		switch {
		case status.IsSuccess():
			result[n.Name] = nil
		case status.IsRejected():
			result[n.Name] = status.Reasons()
		default:
			return nil, fmt.Errorf("node %s: %w", n.Name, status.AsError())
		}
	}
	return result, nil
}

// A cachedFramework serves every Filter call whose pods use its
// namespaces, as kube-scheduler builds its framework once and hands it the
// cache's snapshot each cycle: the snapshot is swapped under the lock. The
// plugins keep nothing between cycles but what they read from the
// snapshot and the informers.
type cachedFramework struct {
	mu     sync.Mutex
	fw     framework.Framework
	lister *swappable
}

// swappable is the framework's SharedLister: the current call's snapshot.
type swappable struct{ snapshot *schedcache.Snapshot }

func (w *swappable) NodeInfos() fwk.NodeInfoLister       { return w.snapshot.NodeInfos() }
func (w *swappable) StorageInfos() fwk.StorageInfoLister { return w.snapshot.StorageInfos() }
func (w *swappable) PodGroupStates() fwk.PodGroupStateLister {
	return w.snapshot.PodGroupStates()
}

var filterFrameworks = struct {
	sync.Mutex
	byNamespaces map[string]*cachedFramework
}{byNamespaces: map[string]*cachedFramework{}}

// filterFramework is the default profile's framework for pods in the
// namespaces of pod and existing, built on first use. PreFilter and Filter
// plugins see nodes and pods through the snapshot, as the scheduler's do
// through its cache; of the API server's objects they read only
// Namespaces (InterPodAffinity's namespaceSelector). The node and pod
// listers that VolumeBinding and DefaultPreemption hold are read at
// PreBind and PostFilter, which Filter does not run, so its fake API
// server holds only the Namespaces. Building a framework, and listing
// every node and pod into its informers, on each call took most of the
// rung's time. Schedule, which runs PostFilter, has its own (cyclefw.go).
func filterFramework(pod *v1.Pod, existing []*v1.Pod) (*cachedFramework, error) {
	objs := namespaces(pod, existing)
	var key strings.Builder
	for _, o := range objs {
		key.WriteString(o.(*v1.Namespace).Name + "\n")
	}
	c := &filterFrameworks
	c.Lock()
	defer c.Unlock()
	if f, ok := c.byNamespaces[key.String()]; ok {
		return f, nil
	}
	f := &cachedFramework{lister: &swappable{snapshot: schedcache.NewEmptySnapshot()}}
	fw, err := newFramework(context.Background(), nil, f.lister, objs)
	if err != nil {
		return nil, err
	}
	f.fw = fw
	c.byNamespaces[key.String()] = f
	return f, nil
}

// registerMetrics initialises the scheduler's metric vectors, which the
// framework records into unconditionally; kube-scheduler does it at startup.
var registerMetrics sync.Once

// newFramework builds profile (nil: the default profile,
// "default-scheduler") the way kube-scheduler's scheduler.New does, with a
// fake clientset holding objs standing in for the API server, and starts
// and syncs the informers the plugins registered. The plugins see nodes and
// pods through the snapshot; the informers only serve the few listers some
// plugins also read (namespaces for InterPodAffinity's namespaceSelector,
// PVCs and storage classes for the volume plugins, and so on).
func newFramework(ctx context.Context, profile *config.KubeSchedulerProfile, snapshot fwk.SharedLister, objs []runtime.Object) (framework.Framework, error) {
	client := fake.NewClientset(objs...)
	informerFactory := informers.NewSharedInformerFactory(client, 0)
	fw, err := buildFramework(ctx, profile, snapshot, client, informerFactory)
	if err != nil {
		return nil, err
	}

	// The plugins registered their informers while being built; start them
	// and wait so that their listers are complete before any plugin runs.
	informerFactory.Start(ctx.Done())
	if err := waitForCacheSync(informerFactory); err != nil {
		return nil, err
	}
	return fw, nil
}

// buildFramework is newFramework without the informers started: it
// builds the profile's plugins on client and informerFactory.
func buildFramework(ctx context.Context, profile *config.KubeSchedulerProfile, snapshot fwk.SharedLister, client *fake.Clientset, informerFactory informers.SharedInformerFactory) (framework.Framework, error) {
	registerMetrics.Do(metrics.Register)

	if profile == nil {
		// The same defaulting kube-scheduler applies to an empty
		// configuration file: versioned defaults (scheme.Scheme.Default),
		// then conversion to the internal type. Profiles[0] is the default
		// profile, with every default plugin under MultiPoint and each
		// plugin's defaulted args.
		cfg, err := latest.Default()
		if err != nil {
			return nil, err
		}
		profile = &cfg.Profiles[0]
	}

	// Pods here claim nothing (prepare rejects claims; ScheduleDRA has its
	// own framework), but PreFilter resolves every pod's extended
	// resources through the manager's DeviceClasses.
	draManager, _, _, _, err := newDRAManager(ctx, client, informerFactory)
	if err != nil {
		return nil, err
	}
	return frameworkruntime.NewFramework(ctx, plugins.NewInTreeRegistry(), profile,
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(informerFactory),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithSharedCSIManager(nodevolumelimits.NewCSIManager(informerFactory.Storage().V1().CSINodes().Lister())),
		frameworkruntime.WithSharedDRAManager(draManager),
	)
}

// waitForCacheSync waits for the factory's started informers to sync. The
// factory's own WaitForCacheSync polls every 100ms, which would dominate the
// cost of a Filter call; against a fake clientset the informers sync within a
// millisecond or two. Given a closed channel, WaitForCacheSync checks once
// and returns at once, so we poll it ourselves, faster.
func waitForCacheSync(f informers.SharedInformerFactory) error {
	checkOnce := make(chan struct{})
	close(checkOnce)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var unsynced []string
		for typ, synced := range f.WaitForCacheSync(checkOnce) {
			if !synced {
				unsynced = append(unsynced, typ.String())
			}
		}
		if len(unsynced) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("informers did not sync: %v", unsynced)
		}
		time.Sleep(time.Millisecond)
	}
}

// prepare copies and defaults the inputs and rejects what the harness cannot
// represent faithfully.
func prepare(pod *v1.Pod, nodes []*v1.Node, existing []*v1.Pod) (*v1.Pod, []*v1.Node, []*v1.Pod, error) {
	if len(pod.Spec.ResourceClaims) > 0 {
		return nil, nil, nil, fmt.Errorf("pod %s: ResourceClaims (DRA) are not supported by this harness", pod.Name)
	}
	pod = defaultPod(pod)

	outNodes, err := defaultNodes(nodes)
	if err != nil {
		return nil, nil, nil, err
	}
	names := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		names[n.Name] = true
	}

	outPods := make([]*v1.Pod, len(existing))
	for i, p := range existing {
		// A pod bound to an unknown node would give the snapshot a NodeInfo
		// without a Node, which no real scheduler cache holds.
		if !names[p.Spec.NodeName] {
			return nil, nil, nil, fmt.Errorf("existing pod %s/%s: Spec.NodeName %q is not one of the nodes", p.Namespace, p.Name, p.Spec.NodeName)
		}
		outPods[i] = defaultPod(p)
	}
	return pod, outNodes, outPods, nil
}

// defaultNodes copies the nodes as the API server would store them, and
// rejects duplicate names.
func defaultNodes(nodes []*v1.Node) ([]*v1.Node, error) {
	names := make(map[string]bool, len(nodes))
	out := make([]*v1.Node, len(nodes))
	for i, n := range nodes {
		if names[n.Name] {
			return nil, fmt.Errorf("duplicate node name %q", n.Name)
		}
		names[n.Name] = true
		n = n.DeepCopy()
		corev1defaults.SetObjectDefaults_Node(n) // e.g. allocatable defaults to capacity
		out[i] = n
	}
	return out, nil
}

// defaultPod returns a copy of p as the API server would store it.
func defaultPod(p *v1.Pod) *v1.Pod {
	p = p.DeepCopy()
	if p.Namespace == "" {
		p.Namespace = metav1.NamespaceDefault // from the request, in a real cluster
	}
	corev1defaults.SetObjectDefaults_Pod(p)
	return p
}

// namespaces is a Namespace for each namespace pod and existing use.
func namespaces(pod *v1.Pod, existing []*v1.Pod) []runtime.Object {
	names := sets.New(pod.Namespace)
	for _, p := range existing {
		names.Insert(p.Namespace)
	}
	var objs []runtime.Object
	for _, ns := range sets.List(names) {
		objs = append(objs, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	return objs
}

// pluginNames lists the plugins the framework runs at PreFilter and Filter, in
// order, as the framework itself reports them.
func pluginNames() (preFilter, filter []string, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fw, err := newFramework(ctx, nil, schedcache.NewEmptySnapshot(), nil)
	if err != nil {
		return nil, nil, err
	}
	list := fw.ListPlugins()
	for _, p := range list.PreFilter.Enabled {
		preFilter = append(preFilter, p.Name)
	}
	for _, p := range list.Filter.Enabled {
		filter = append(filter, p.Name)
	}
	return preFilter, filter, nil
}
