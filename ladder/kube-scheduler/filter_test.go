package kubesched

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The reasons kube-scheduler v1.35.4 gives, copied from its plugins.
const (
	untolerated     = "node(s) had untolerated taint(s)"
	noGPU           = "Insufficient nvidia.com/gpu"
	noCPU           = "Insufficient cpu"
	nodeAffinity    = "node(s) didn't match Pod's node affinity/selector"
	tooManyPods     = "Too many pods"
	antiAffinity    = "node(s) didn't match pod anti-affinity rules"
	existingAnti    = "node(s) didn't satisfy existing pods anti-affinity rules"
	topologySpread  = "node(s) didn't match pod topology spread constraints"
	termsConflict   = "pod affinity terms conflict"
	notInPreFilter  = "node(s) didn't satisfy plugin(s) [NodeAffinity]"
	gpuCountLabel   = "nvidia.com/gpu.count"
	gpuNodeName     = "gpu-node"
	cpuNodeName     = "cpu-node"
	gpuNodeMaxPods  = 3
	gpuNodeGPUCount = 4
)

// gpuNode is a g5.12xlarge-like node: 4 GPUs behind the usual GPU taint, and a
// small maxPods so that "Too many pods" is cheap to reach.
func gpuNode() *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: gpuNodeName,
			Labels: map[string]string{
				v1.LabelHostname:           gpuNodeName,
				v1.LabelTopologyZone:       "us-east-1a",
				v1.LabelInstanceTypeStable: "g5.12xlarge",
				"nvidia.com/gpu.product":   "NVIDIA-A10G",
				gpuCountLabel:              fmt.Sprint(gpuNodeGPUCount),
			},
		},
		Spec: v1.NodeSpec{
			Taints: []v1.Taint{{Key: "nvidia.com/gpu", Value: "true", Effect: v1.TaintEffectNoSchedule}},
		},
		Status: v1.NodeStatus{
			Allocatable: v1.ResourceList{
				v1.ResourceCPU:    resource.MustParse("47810m"),
				v1.ResourceMemory: resource.MustParse("186Gi"),
				v1.ResourcePods:   *resource.NewQuantity(gpuNodeMaxPods, resource.DecimalSI),
				"nvidia.com/gpu":  *resource.NewQuantity(gpuNodeGPUCount, resource.DecimalSI),
			},
		},
	}
}

// cpuNode is an untainted node without GPUs in another zone.
func cpuNode() *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: cpuNodeName,
			Labels: map[string]string{
				v1.LabelHostname:           cpuNodeName,
				v1.LabelTopologyZone:       "us-east-1b",
				v1.LabelInstanceTypeStable: "m5.xlarge",
			},
		},
		Status: v1.NodeStatus{
			Allocatable: v1.ResourceList{
				v1.ResourceCPU:    resource.MustParse("3920m"),
				v1.ResourceMemory: resource.MustParse("14Gi"),
				v1.ResourcePods:   resource.MustParse("58"),
			},
		},
	}
}

// pod builds a pod from options; with none, it asks for nothing.
func pod(name string, opts ...func(*v1.Pod)) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ml"},
		Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "main", Image: "trainer"}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func requests(rl v1.ResourceList) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.Containers[0].Resources.Requests = rl }
}

func limits(rl v1.ResourceList) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.Containers[0].Resources.Limits = rl }
}

func gpus(n int64) v1.ResourceList {
	q := *resource.NewQuantity(n, resource.DecimalSI)
	return v1.ResourceList{"nvidia.com/gpu": q}
}

func tolerate(t v1.Toleration) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.Tolerations = append(p.Spec.Tolerations, t) }
}

// tolerateGPU is the usual toleration of the GPU taint.
var tolerateGPU = tolerate(v1.Toleration{Key: "nvidia.com/gpu", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})

func labels(kv ...string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		for i := 0; i < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func on(node string) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.NodeName = node }
}

// requiredNodeAffinity sets one required node selector term.
func requiredNodeAffinity(term v1.NodeSelectorTerm, more ...v1.NodeSelectorTerm) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
				NodeSelectorTerms: append([]v1.NodeSelectorTerm{term}, more...),
			},
		}}
	}
}

func expr(key string, op v1.NodeSelectorOperator, values ...string) v1.NodeSelectorTerm {
	return v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}
}

// hostnameAntiAffinity keeps the pod off nodes running a pod labelled app=value.
func hostnameAntiAffinity(app string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
				TopologyKey:   v1.LabelHostname,
			}},
		}}
	}
}

func TestFilter(t *testing.T) {
	existingOn := func(node string, n int, opts ...func(*v1.Pod)) []*v1.Pod {
		var pods []*v1.Pod
		for i := range n {
			pods = append(pods, pod(fmt.Sprintf("existing-%d", i), append(opts, on(node))...))
		}
		return pods
	}

	tests := []struct {
		name     string
		pod      *v1.Pod
		existing []*v1.Pod
		want     map[string][]string
	}{
		{
			name: "(a) fits: tolerates the taint, asks for 1 GPU",
			pod:  pod("a", tolerateGPU, requests(gpus(1)), limits(gpus(1))),
			want: map[string][]string{gpuNodeName: nil, cpuNodeName: {noGPU}},
		},
		{
			name: "(b) no toleration",
			pod:  pod("b", requests(gpus(1)), limits(gpus(1))),
			want: map[string][]string{gpuNodeName: {untolerated}, cpuNodeName: {noGPU}},
		},
		{
			name: "(c) Equal toleration with the wrong value",
			pod: pod("c", requests(gpus(1)), limits(gpus(1)),
				tolerate(v1.Toleration{Key: "nvidia.com/gpu", Operator: v1.TolerationOpEqual, Value: "present", Effect: v1.TaintEffectNoSchedule})),
			want: map[string][]string{gpuNodeName: {untolerated}, cpuNodeName: {noGPU}},
		},
		{
			name: "(c') Equal toleration with the right value",
			pod: pod("c2", requests(gpus(1)), limits(gpus(1)),
				tolerate(v1.Toleration{Key: "nvidia.com/gpu", Operator: v1.TolerationOpEqual, Value: "true", Effect: v1.TaintEffectNoSchedule})),
			want: map[string][]string{gpuNodeName: nil, cpuNodeName: {noGPU}},
		},
		{
			name: "(d) more GPUs than allocatable",
			pod:  pod("d", tolerateGPU, requests(gpus(gpuNodeGPUCount+1)), limits(gpus(gpuNodeGPUCount+1))),
			want: map[string][]string{gpuNodeName: {noGPU}, cpuNodeName: {noGPU}},
		},
		{
			name: "(d') GPUs as limits only: the API server's defaulting makes them requests",
			pod:  pod("d2", tolerateGPU, limits(gpus(gpuNodeGPUCount+1))),
			want: map[string][]string{gpuNodeName: {noGPU}, cpuNodeName: {noGPU}},
		},
		{
			name: "(d'') several resources short: one reason each, in the plugin's order",
			pod: pod("d3", tolerateGPU,
				requests(v1.ResourceList{v1.ResourceCPU: resource.MustParse("64"), "nvidia.com/gpu": resource.MustParse("8")}),
				limits(gpus(8))),
			want: map[string][]string{gpuNodeName: {noCPU, noGPU}, cpuNodeName: {noCPU, noGPU}},
		},
		{
			name: "(e) node affinity on a label no node carries",
			pod:  pod("e", tolerateGPU, requiredNodeAffinity(expr("gpufleet.io/pool", v1.NodeSelectorOpIn, "a100"))),
			want: map[string][]string{gpuNodeName: {nodeAffinity}, cpuNodeName: {nodeAffinity}},
		},
		{
			name: "(e') nodeSelector on a label no node carries",
			pod:  pod("e2", tolerateGPU, func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{"gpufleet.io/pool": "a100"} }),
			want: map[string][]string{gpuNodeName: {nodeAffinity}, cpuNodeName: {nodeAffinity}},
		},
		{
			name: "(f) Gt on a numeric label, passing (4 > 2)",
			pod:  pod("f", tolerateGPU, requiredNodeAffinity(expr(gpuCountLabel, v1.NodeSelectorOpGt, "2"))),
			want: map[string][]string{gpuNodeName: nil, cpuNodeName: {nodeAffinity}},
		},
		{
			name: "(f') Gt on a numeric label, failing (4 > 4)",
			pod:  pod("f2", tolerateGPU, requiredNodeAffinity(expr(gpuCountLabel, v1.NodeSelectorOpGt, "4"))),
			want: map[string][]string{gpuNodeName: {nodeAffinity}, cpuNodeName: {nodeAffinity}},
		},
		{
			name:     "(g) maxPods already reached by existing pods",
			pod:      pod("g", tolerateGPU, requests(gpus(1)), limits(gpus(1))),
			existing: existingOn(gpuNodeName, gpuNodeMaxPods),
			want:     map[string][]string{gpuNodeName: {tooManyPods}, cpuNodeName: {noGPU}},
		},
		{
			name:     "(g') one pod short of maxPods",
			pod:      pod("g2", tolerateGPU, requests(gpus(1)), limits(gpus(1))),
			existing: existingOn(gpuNodeName, gpuNodeMaxPods-1),
			want:     map[string][]string{gpuNodeName: nil, cpuNodeName: {noGPU}},
		},
		{
			name:     "(h) required hostname anti-affinity against a matching pod on the node",
			pod:      pod("h", tolerateGPU, labels("app", "trainer"), hostnameAntiAffinity("trainer")),
			existing: existingOn(gpuNodeName, 1, labels("app", "trainer")),
			want:     map[string][]string{gpuNodeName: {antiAffinity}, cpuNodeName: nil},
		},
		{
			name:     "(h') the existing pod's anti-affinity rejects the incoming pod",
			pod:      pod("h2", tolerateGPU, labels("app", "trainer")),
			existing: existingOn(gpuNodeName, 1, labels("app", "trainer"), hostnameAntiAffinity("trainer")),
			want:     map[string][]string{gpuNodeName: {existingAnti}, cpuNodeName: nil},
		},
		{
			name: "(i) zone spread, DoNotSchedule, maxSkew 1, one matching pod already in the GPU node's zone",
			pod: pod("i", tolerateGPU, labels("app", "spread"), func(p *v1.Pod) {
				p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{
					MaxSkew:           1,
					TopologyKey:       v1.LabelTopologyZone,
					WhenUnsatisfiable: v1.DoNotSchedule,
					LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "spread"}},
				}}
			}),
			existing: existingOn(gpuNodeName, 1, labels("app", "spread")),
			want:     map[string][]string{gpuNodeName: {topologySpread}, cpuNodeName: nil},
		},
		{
			name: "(j) PreFilter rejection: conflicting metadata.name fields apply to every node",
			pod: pod("j", tolerateGPU, requiredNodeAffinity(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{
				{Key: metav1.ObjectNameField, Operator: v1.NodeSelectorOpIn, Values: []string{gpuNodeName}},
				{Key: metav1.ObjectNameField, Operator: v1.NodeSelectorOpIn, Values: []string{cpuNodeName}},
			}})),
			want: map[string][]string{gpuNodeName: {termsConflict}, cpuNodeName: {termsConflict}},
		},
		{
			name: "(k) PreFilterResult: affinity to one node by name rules out the others",
			pod: pod("k", tolerateGPU, requiredNodeAffinity(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{
				{Key: metav1.ObjectNameField, Operator: v1.NodeSelectorOpIn, Values: []string{gpuNodeName}},
			}})),
			want: map[string][]string{gpuNodeName: nil, cpuNodeName: {notInPreFilter}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Filter(tc.pod, []*v1.Node{gpuNode(), cpuNode()}, tc.existing)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%q", got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Filter() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFilterDoesNotModifyInputs checks that defaulting happens on copies.
func TestFilterDoesNotModifyInputs(t *testing.T) {
	p := pod("p", tolerateGPU, limits(gpus(1)))
	existing := []*v1.Pod{pod("e", on(gpuNodeName))}
	nodes := []*v1.Node{gpuNode()}
	want := []any{p.DeepCopy(), existing[0].DeepCopy(), nodes[0].DeepCopy()}
	if _, err := Filter(p, nodes, existing); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, []any{p, existing[0], nodes[0]}); diff != "" {
		t.Errorf("inputs modified (-before +after):\n%s", diff)
	}
}

func TestFilterRejectsUnknownNode(t *testing.T) {
	_, err := Filter(pod("p"), []*v1.Node{gpuNode()}, []*v1.Pod{pod("e", on("nowhere"))})
	if err == nil {
		t.Fatal("Filter accepted an existing pod bound to a node it was not given")
	}
}

// TestPlugins pins the plugins the default profile runs, as the framework
// reports them, so that a change of version or feature gates shows up here.
// v1.36 added NodeDeclaredFeatures (its gate on by default), which refuses a
// node whose status.declaredFeatures lack a feature the pod's spec needs
// (component-helpers/nodedeclaredfeatures: in-place resize, container restart
// rules, user namespaces with host network); the tree's pods use none, so
// the checker need not restate it, and the differentials above hold that.
func TestPlugins(t *testing.T) {
	preFilter, filter, err := pluginNames()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("PreFilter: %q", preFilter)
	t.Logf("Filter: %q", filter)
	wantPreFilter := []string{
		"NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits",
		"VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources",
		"NodeDeclaredFeatures",
	}
	wantFilter := []string{
		"NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit",
		"VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread",
		"InterPodAffinity", "DynamicResources", "NodeDeclaredFeatures",
	}
	if diff := cmp.Diff(wantPreFilter, preFilter); diff != "" {
		t.Errorf("PreFilter plugins (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantFilter, filter); diff != "" {
		t.Errorf("Filter plugins (-want +got):\n%s", diff)
	}
}

func BenchmarkFilter(b *testing.B) {
	p := pod("p", tolerateGPU, requests(gpus(1)), limits(gpus(1)))
	nodes := []*v1.Node{gpuNode(), cpuNode()}
	for b.Loop() {
		if _, err := Filter(p, nodes, nil); err != nil {
			b.Fatal(err)
		}
	}
}
