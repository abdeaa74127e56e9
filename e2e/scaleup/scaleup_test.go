package scaleup

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var (
	p5    = InstanceType{Name: "p5.48xlarge", VCPU: 192, MemoryMiB: 2048 * 1024, GPU: 8, Architecture: "amd64"}
	g5    = InstanceType{Name: "g5.2xlarge", VCPU: 8, MemoryMiB: 32 * 1024, GPU: 1, Architecture: "amd64"}
	m7i   = InstanceType{Name: "m7i.xlarge", VCPU: 4, MemoryMiB: 16 * 1024, Architecture: "amd64"}
	m7i4x = InstanceType{Name: "m7i.4xlarge", VCPU: 16, MemoryMiB: 64 * 1024, Architecture: "amd64"}
	gpuTa = corev1.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}
)

func group(name string, it InstanceType, size, max int, tags map[string]string, zones ...string) *Group {
	if len(zones) == 0 {
		zones = []string{"us-west-2a"}
	}
	return &Group{Name: name, Type: it, Zones: zones, Tags: tags, Size: size, Max: max, Devices: map[string]int64{}}
}

// withNode gives g a registered node built from its template, GPUs
// advertised or not, publishing devices DRA devices.
func withNode(g *Group, gpus bool, devices int64) *Group {
	n := FromTags(g)
	n.Name = g.Name + "-0"
	if !gpus {
		delete(n.Status.Allocatable, ResourceGPU)
	}
	g.Nodes = append(g.Nodes, n)
	g.Devices[n.Name] = devices
	return g
}

const networkLayer = "topology.k8s.aws/network-node-layer-1"

// networkNode gives g a ready node labelled with its own network node.
func networkNode(g *Group) *Group {
	withNode(g, true, 0)
	g.Nodes[0].Labels[networkLayer] = "nn-" + g.Zones[0]
	return g
}

func pod(name, cpu, gpu string, devices int64, mutate ...func(*corev1.Pod)) Pod {
	req := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
	if gpu != "" {
		req[ResourceGPU] = resource.MustParse(gpu)
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "t", Labels: map[string]string{"app": "x"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: req}}},
			Tolerations: []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists}}}}
	for _, m := range mutate {
		m(p)
	}
	return Pod{Pod: p, Devices: devices}
}

func pods(n int, mk func(name string) Pod) []Pod {
	out := make([]Pod, n)
	for i := range out {
		out[i] = mk(fmt.Sprintf("p%d", i))
	}
	return out
}

var draTags = map[string]string{TagLabel + "gpufleet.dev/gpu-api": "dra", TagResource + "nvidia.com/gpu": "8", TagTaint + "nvidia.com/gpu": "true:NoSchedule"}

func antiAffinity(p *corev1.Pod) {
	p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}}}}}
}

type scaleCase struct {
	name    string
	groups  []*Group
	pending []Pod
	opts    func(*Options)
	want    []Increase
	// noScaleUp is a substring of every pending pod's NoScaleUp reason
	// ("" when each is helped).
	noScaleUp string
}

func scaleCases() []scaleCase {
	return []scaleCase{
		{name: "DRA claims never scale a group up from zero: the template has no ResourceSlices",
			groups:    []*Group{group("h100-dra", p5, 0, 4, draTags)},
			pending:   pods(2, func(n string) Pod { return pod(n, "1", "", 1) }),
			noScaleUp: "h100-dra: cannot allocate all claims"},
		{name: "a group with a node is templated on it, its devices included",
			groups:  []*Group{withNode(group("h100-dra", p5, 1, 4, draTags), false, 8)},
			pending: pods(9, func(n string) Pod { return pod(n, "1", "", 1) }),
			want:    []Increase{{Group: "h100-dra", From: 1, To: 3}}},
		{name: "GPUs from the instance type and the resource tags",
			groups:  []*Group{group("a10g", g5, 0, 4, map[string]string{TagTaint + "nvidia.com/gpu": "true:NoSchedule"})},
			pending: pods(3, func(n string) Pod { return pod(n, "1", "1", 0) }),
			want:    []Increase{{Group: "a10g", From: 0, To: 3}}},
		{name: "a resource tag overrides the type's GPUs (MIG: nvidia.com/gpu 0)",
			groups:    []*Group{group("a100-mig", p5, 0, 4, map[string]string{TagResource + "nvidia.com/gpu": "0"})},
			pending:   pods(1, func(n string) Pod { return pod(n, "1", "1", 0) }),
			noScaleUp: "a100-mig: Insufficient nvidia.com/gpu"},
		{name: "an untolerated taint from the tags",
			groups:    []*Group{group("a10g", g5, 0, 4, map[string]string{TagTaint + "dedicated": "infer:NoSchedule"})},
			pending:   []Pod{pod("p0", "1", "1", 0)},
			noScaleUp: "a10g: node(s) had untolerated taint {dedicated: infer}"},
		{name: "a node selector on a tag's label",
			groups: []*Group{group("a10g", g5, 0, 4, map[string]string{TagLabel + "gpufleet.dev/pool": "a10g"}), group("b", g5, 0, 4, nil)},
			pending: []Pod{pod("p0", "1", "1", 0, func(p *corev1.Pod) {
				p.Spec.NodeSelector = map[string]string{"gpufleet.dev/pool": "a10g"}
			})},
			want: []Increase{{Group: "a10g", From: 0, To: 1}}},
		{name: "never past max size",
			groups:  []*Group{group("a10g", g5, 1, 3, nil)},
			pending: pods(5, func(n string) Pod { return pod(n, "1", "1", 0) }),
			want:    []Increase{{Group: "a10g", From: 1, To: 3}}},
		{name: "a group at max size is skipped",
			groups:    []*Group{group("a10g", g5, 3, 3, nil)},
			pending:   pods(1, func(n string) Pod { return pod(n, "1", "1", 0) }),
			noScaleUp: "a10g: max node group size reached"},
		{name: "zone groups are balanced (--balance-similar-node-groups)",
			groups:  []*Group{group("general-us-west-2a", m7i, 1, 3, nil, "us-west-2a"), group("general-us-west-2b", m7i, 0, 3, nil, "us-west-2b")},
			pending: pods(3, func(n string) Pod { return pod(n, "3", "", 0) }),
			want:    []Increase{{Group: "general-us-west-2a", From: 1, To: 2}, {Group: "general-us-west-2b", From: 0, To: 2}}},
		{name: "without the flag, one group takes every node",
			groups:  []*Group{group("general-us-west-2a", m7i, 1, 3, nil, "us-west-2a"), group("general-us-west-2b", m7i, 0, 3, nil, "us-west-2b")},
			pending: pods(2, func(n string) Pod { return pod(n, "3", "", 0) }),
			opts:    func(o *Options) { o.BalanceSimilar = false },
			want:    []Increase{{Group: "general-us-west-2a", From: 1, To: 3}}},
		{name: "zone groups whose nodes carry EC2's network-layer labels are not similar (the AWS comparator does not ignore them)",
			groups:  []*Group{networkNode(group("l40s-us-west-2a", g5, 1, 3, nil, "us-west-2a")), networkNode(group("l40s-us-west-2b", g5, 1, 3, nil, "us-west-2b"))},
			pending: pods(2, func(n string) Pod { return pod(n, "1", "1", 0) }),
			want:    []Increase{{Group: "l40s-us-west-2a", From: 1, To: 3}}},
		{name: "unless --balancing-ignore-label names them",
			groups:  []*Group{networkNode(group("l40s-us-west-2a", g5, 1, 3, nil, "us-west-2a")), networkNode(group("l40s-us-west-2b", g5, 1, 3, nil, "us-west-2b"))},
			pending: pods(2, func(n string) Pod { return pod(n, "1", "1", 0) }),
			opts:    func(o *Options) { o.IgnoreLabels = []string{networkLayer} },
			want:    []Increase{{Group: "l40s-us-west-2a", From: 1, To: 2}, {Group: "l40s-us-west-2b", From: 1, To: 2}}},
		{name: "the least-waste expander takes the smaller type",
			groups:  []*Group{group("big", m7i4x, 0, 3, nil), group("small", m7i, 0, 3, nil)},
			pending: pods(1, func(n string) Pod { return pod(n, "3", "", 0) }),
			want:    []Increase{{Group: "small", From: 0, To: 1}}},
		{name: "hostname anti-affinity: one pod a node",
			groups:  []*Group{group("big", m7i4x, 0, 5, nil)},
			pending: pods(3, func(n string) Pod { return pod(n, "1", "", 0, antiAffinity) }),
			want:    []Increase{{Group: "big", From: 0, To: 3}}},
		{name: "a group whose node is unready for its GPUs is backed off",
			groups:    []*Group{withNode(group("a100-mig", p5, 1, 4, map[string]string{TagLabel + GPULabel: "nvidia-a100"}), false, 0)},
			pending:   pods(1, func(n string) Pod { return pod(n, "1", "", 0) }),
			noScaleUp: "a100-mig: node group is backed off"},
		{name: "a labelled node that advertises its GPUs is ready and the template",
			groups:  []*Group{withNode(group("a10g", g5, 1, 4, map[string]string{TagLabel + GPULabel: "nvidia-a10g"}), true, 0)},
			pending: pods(1, func(n string) Pod { return pod(n, "1", "1", 0) }),
			want:    []Increase{{Group: "a10g", From: 1, To: 2}}},
		{name: "past 3 unready nodes and 45% of the cluster, no scale-up at all",
			groups: func() []*Group {
				var gs []*Group
				for i := 0; i < 4; i++ {
					gs = append(gs, withNode(group(fmt.Sprintf("mig%d", i), p5, 1, 4, map[string]string{TagLabel + GPULabel: "nvidia-a100"}), false, 0))
				}
				return append(gs, group("general", m7i, 0, 3, nil))
			}(),
			pending:   pods(1, func(n string) Pod { return pod(n, "1", "", 0) }),
			noScaleUp: "too many unready nodes"},
	}
}

func runCase(t *testing.T, c scaleCase) error {
	t.Helper()
	o := Defaults()
	if c.opts != nil {
		c.opts(&o)
	}
	d := ScaleUp(c.groups, c.pending, o)
	if !reflect.DeepEqual(d.Increases, c.want) {
		return fmt.Errorf("increases %v, want %v (no scale-up: %v)", d.Increases, c.want, d.NoScaleUp)
	}
	if c.noScaleUp == "" && len(d.NoScaleUp) > 0 {
		return fmt.Errorf("pods not helped: %v", d.NoScaleUp)
	}
	if c.noScaleUp != "" {
		for _, p := range c.pending {
			if !strings.Contains(d.NoScaleUp[p.Pod.Name], c.noScaleUp) {
				return fmt.Errorf("pod %s: no-scale-up reason %q lacks %q", p.Pod.Name, d.NoScaleUp[p.Pod.Name], c.noScaleUp)
			}
		}
	}
	return nil
}

func TestScaleUp(t *testing.T) {
	for _, c := range scaleCases() {
		t.Run(c.name, func(t *testing.T) {
			if err := runCase(t, c); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestFromTags(t *testing.T) {
	g := group("a100-mig", p5, 0, 4, map[string]string{
		TagLabel + "nvidia.com/mig.config": "all-1g.10gb", TagResource + "nvidia.com/gpu": "0",
		TagResource + "nvidia.com/mig-1g.10gb": "56", TagTaint + "nvidia.com/gpu": "true:NoSchedule", TagTaint + "bad": "novalue"}, "us-west-2b", "us-west-2a")
	g.Labels = map[string]string{"gpufleet.dev/pool": "a100-mig"}
	n := FromTags(g)
	mig, gpu, cpu := n.Status.Allocatable["nvidia.com/mig-1g.10gb"], n.Status.Allocatable[ResourceGPU], n.Status.Capacity[corev1.ResourceCPU]
	if mig.Value() != 56 || !gpu.IsZero() || cpu.Value() != 192 {
		t.Errorf("capacity %v", n.Status.Capacity)
	}
	for k, v := range map[string]string{"nvidia.com/mig.config": "all-1g.10gb", "gpufleet.dev/pool": "a100-mig", corev1.LabelTopologyZone: "us-west-2b",
		corev1.LabelTopologyRegion: "us-west-2", corev1.LabelInstanceTypeStable: "p5.48xlarge"} {
		if n.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, n.Labels[k], v)
		}
	}
	if !reflect.DeepEqual(n.Spec.Taints, []corev1.Taint{gpuTa}) {
		t.Errorf("taints %v, want only %v (a taint tag without an effect is dropped)", n.Spec.Taints, gpuTa)
	}
}

// TestDeliberateBugs swaps in wrong rules and asserts the table catches
// each.
func TestDeliberateBugs(t *testing.T) {
	bugs := []struct {
		name   string
		inject func() (undo func())
		caught string // the case that must fail
	}{
		{"a template from the tags credits the type's GPUs as DRA devices (the from-zero rule ignored)", func() func() {
			templateOf = func(g *Group, l string) Template {
				tp := TemplateFor(g, l)
				if !tp.FromNode {
					tp.Devices = g.Type.GPU
				}
				return tp
			}
			return func() { templateOf = TemplateFor }
		}, "DRA claims never scale a group up from zero: the template has no ResourceSlices"},
		{"the network-layer labels taken for AWS's own ignored labels", func() func() {
			ignoredLabels[networkLayer] = true
			return func() { delete(ignoredLabels, networkLayer) }
		}, "zone groups whose nodes carry EC2's network-layer labels are not similar (the AWS comparator does not ignore them)"},
		{"GPU readiness ignored", func() func() {
			ready = func(*corev1.Node, string) bool { return true }
			return func() { ready = Ready }
		}, "a group whose node is unready for its GPUs is backed off"},
	}
	for _, b := range bugs {
		t.Run(b.name, func(t *testing.T) {
			undo := b.inject()
			defer undo()
			for _, c := range scaleCases() {
				if c.name == b.caught {
					if runCase(t, c) == nil {
						t.Errorf("the bug passes %q", c.name)
					}
					return
				}
			}
			t.Fatalf("no case %q", b.caught)
		})
	}
}
