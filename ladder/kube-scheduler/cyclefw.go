package kubesched

import (
	"context"
	"reflect"
	"slices"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	schedcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// A cycleFramework is Schedule's framework for one profile, built on
// first use and lent to one call at a time, as kube-scheduler builds a
// profile's framework once at startup and runs every cycle on it.
// Building one per call (plugins, fake API server, informers listing
// every node and pod) took most of the placement differential's time.
//
// What a call brings is lent in and taken back: the snapshot, through
// the framework's SharedLister, and what its own API server would hold
// (its pods, nodes and their namespaces), put straight into the stores
// of the informers that list those kinds. Those informers are never
// started, so no reflector can overwrite the stores; every other kind
// (PVCs, PDBs, Services, ...) stays empty, as the call's fake API server
// had none. The fake clientset is empty: in a cycle it is written only
// by preemption, which a nomination ends reuse for (Schedule).
type cycleFramework struct {
	mu      sync.Mutex
	profile *config.KubeSchedulerProfile // a copy; nil: the default profile
	fw      framework.Framework
	lister  *swappable
	cancel  context.CancelFunc
	gone    bool // forgotten: a caller that waited for mu looks again
	// The stores behind the listers of the kinds the call's API server held.
	pods, nodes, namespaces cache.Store
}

// cycleFrameworks are the frameworks built so far, one per distinct
// profile: every fleet's config is parsed afresh, so equal profiles
// arrive as distinct pointers.
var cycleFrameworks struct {
	sync.Mutex
	all []*cycleFramework
}

// cycleFrameworkFor is the framework for profile, built on first use,
// with its mu held.
func cycleFrameworkFor(profile *config.KubeSchedulerProfile) (*cycleFramework, error) {
	for {
		f, err := findCycleFramework(profile)
		if err != nil {
			return nil, err
		}
		f.mu.Lock()
		if !f.gone {
			return f, nil
		}
		f.mu.Unlock()
	}
}

func findCycleFramework(profile *config.KubeSchedulerProfile) (*cycleFramework, error) {
	c := &cycleFrameworks
	c.Lock()
	defer c.Unlock()
	for _, f := range c.all {
		if reflect.DeepEqual(f.profile, profile) {
			return f, nil
		}
	}
	f, err := newCycleFramework(profile)
	if err != nil {
		return nil, err
	}
	c.all = append(c.all, f)
	return f, nil
}

func newCycleFramework(profile *config.KubeSchedulerProfile) (*cycleFramework, error) {
	if profile != nil {
		profile = profile.DeepCopy() // the caller's may change after
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &cycleFramework{profile: profile, lister: &swappable{snapshot: schedcache.NewEmptySnapshot()}, cancel: cancel}
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	fw, err := buildFramework(ctx, profile, f.lister, client, factory)
	if err != nil {
		cancel()
		return nil, err
	}
	f.fw = fw
	// The same shared informers the plugins took their listers from.
	f.pods = factory.Core().V1().Pods().Informer().GetStore()
	f.nodes = factory.Core().V1().Nodes().Informer().GetStore()
	f.namespaces = factory.Core().V1().Namespaces().Informer().GetStore()
	return f, nil
}

// lend makes the framework see snapshot, and the API server hold pods,
// nodes and a Namespace for each of the pods' namespaces, replacing
// whatever an earlier call left; lend(empty snapshot, nil, nil) takes
// them back. The caller holds f.mu.
func (f *cycleFramework) lend(snapshot *schedcache.Snapshot, pods []*v1.Pod, nodes []*v1.Node) error {
	f.lister.snapshot = snapshot
	var ps, ns, nss []any
	for _, p := range pods {
		ps = append(ps, p)
	}
	for _, n := range nodes {
		ns = append(ns, n)
	}
	if len(pods) > 0 {
		for _, o := range namespaces(pods[0], pods) {
			nss = append(nss, o)
		}
	}
	for _, s := range []struct {
		store cache.Store
		objs  []any
	}{{f.pods, ps}, {f.nodes, ns}, {f.namespaces, nss}} {
		if err := s.store.Replace(s.objs, ""); err != nil {
			return err
		}
	}
	return nil
}

// forget drops f, so the next call under its profile builds a fresh one.
// The caller holds f.mu.
func (f *cycleFramework) forget() {
	f.gone = true
	c := &cycleFrameworks
	c.Lock()
	defer c.Unlock()
	c.all = slices.DeleteFunc(c.all, func(g *cycleFramework) bool { return g == f })
	f.cancel()
}
