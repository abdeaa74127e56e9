package kubesched

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	schedcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
)

// TestScheduleReusesNothing: Schedule on its reused frameworks places
// pods exactly as a framework built for the call alone does, its fake API
// server holding the call's nodes, pods and namespaces and its informers
// started (what Schedule did before it reused them), whatever calls came
// before, and a call leaves nothing lent to the framework.
func TestScheduleReusesNothing(t *testing.T) {
	binpack, err := loadSchedulerConfig([]byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: binpack
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
`))
	if err != nil {
		t.Fatal(err)
	}
	cpu := func(name string) *v1.Node {
		n := cpuNode()
		n.Name, n.Labels[v1.LabelHostname] = name, name
		return n
	}
	many := func(n int, opts ...func(*v1.Pod)) []*v1.Pod {
		var out []*v1.Pod
		for i := range n {
			out = append(out, pod(fmt.Sprintf("p-%d", i), opts...))
		}
		return out
	}
	oneCPU := requests(v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")})
	inNamespace := func(ns string) func(*v1.Pod) { return func(p *v1.Pod) { p.Namespace = ns } }
	// Anti-affinity to app=web in the namespaces without a team label,
	// which InterPodAffinity lists from the Namespace lister.
	anyNamespace := func(p *v1.Pod) {
		p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].NamespaceSelector = &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpDoesNotExist}},
		}
	}
	cases := []struct {
		name    string
		profile *config.KubeSchedulerProfile
		pods    []*v1.Pod
		nodes   []*v1.Node
	}{
		{"cpu, default profile", nil, many(9, oneCPU), []*v1.Node{cpu("a"), cpu("b")}},
		{"cpu, binpack", &binpack.Profiles[0], many(9, oneCPU), []*v1.Node{cpu("a"), cpu("b")}},
		{"anti-affinity across namespaces", nil,
			many(3, inNamespace("x"), labels("app", "web"), hostnameAntiAffinity("web"), anyNamespace),
			[]*v1.Node{cpu("a"), gpuNode()}},
		{"gpus, max pods", nil, many(4, tolerateGPU, requests(gpus(1))), []*v1.Node{gpuNode(), cpuNode()}},
		{"one node", &binpack.Profiles[0], many(2, inNamespace("y"), oneCPU), []*v1.Node{cpu("c")}},
	}
	// Twice over, so every case also runs after every other.
	for pass := range 2 {
		for _, tc := range cases {
			got, err := Schedule(tc.profile, tc.pods, tc.nodes, nil)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			want, err := scheduleFresh(tc.profile, tc.pods, tc.nodes)
			if err != nil {
				t.Fatalf("%s, fresh: %v", tc.name, err)
			}
			if g, w := summary(got), summary(want); g != w {
				t.Errorf("pass %d, %s:\nreused %s\nfresh  %s", pass, tc.name, g, w)
			}
			f, err := cycleFrameworkFor(tc.profile)
			if err != nil {
				t.Fatal(err)
			}
			left, _ := f.lister.NodeInfos().List()
			if len(left)+len(f.pods.List())+len(f.nodes.List())+len(f.namespaces.List()) > 0 {
				t.Errorf("%s: the framework still holds %d node infos, %d pods, %d nodes, %d namespaces",
					tc.name, len(left), len(f.pods.List()), len(f.nodes.List()), len(f.namespaces.List()))
			}
			f.mu.Unlock()
		}
	}
}

// scheduleFresh is Schedule on a framework of its own.
func scheduleFresh(profile *config.KubeSchedulerProfile, pods []*v1.Pod, nodes []*v1.Node) (*Placement, error) {
	pending, nodes, err := cycleInputs(pods, nodes)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	snapshot := schedcache.NewEmptySnapshot()
	fw, err := newFramework(ctx, profile, snapshot, objects(nodes, pending))
	if err != nil {
		return nil, err
	}
	return cycle(fw, snapshot, pending, nodes, nil)
}

// objects are the nodes, the pods and a Namespace for each namespace the
// pods use.
func objects(nodes []*v1.Node, pods []*v1.Pod) []runtime.Object {
	var objs []runtime.Object
	namespaces := sets.New[string]()
	for _, n := range nodes {
		objs = append(objs, n)
	}
	for _, p := range pods {
		namespaces.Insert(p.Namespace)
		objs = append(objs, p)
	}
	for _, ns := range sets.List(namespaces) {
		objs = append(objs, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	return objs
}

// summary is what a Placement says; each node's reasons sorted, since
// NodeResourcesFit gives extended resources' in map order.
func summary(p *Placement) string {
	refused := "none"
	if p.Refused != nil {
		refused = p.Refused.Namespace + "/" + p.Refused.Name
	}
	reasons := map[string][]string{}
	for n, rs := range p.Reasons {
		reasons[n] = sorted(rs)
	}
	return fmt.Sprintf("bound on %v, refused %s, reasons %v, message %q, nominated %q", hosts(p), refused, reasons, p.Message, p.Nominated)
}
