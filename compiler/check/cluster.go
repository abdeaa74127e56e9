// Package check is the placement checker. It reads the rendered tree back,
// synthesises nodes from the node groups and pods from the class examples,
// and runs kube-scheduler's filters on them, with the scheduler's own
// semantics (k8s.io/component-helpers) and wording.
package check

import (
	"bytes"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/eksctl"
	"github.com/gpufleet/gpufleet/compiler/render"
)

// Well-known node labels the kubelet and cloud provider set.
const (
	labelHostname     = "kubernetes.io/hostname"
	labelZone         = "topology.kubernetes.io/zone"
	labelInstanceType = "node.kubernetes.io/instance-type"
)

// Pool is a node group as the cluster will see it at max size.
type Pool struct {
	Name     string
	Spot     bool
	Zones    []string
	MaxNodes int32
	// Nodes holds one synthesised node per instance type and populated zone.
	Nodes []Node
}

// NodesInZone is how many of the pool's nodes run in zone: the auto scaling
// group balances its max size across its zones, the remainder going to the
// first zones listed.
func (p *Pool) NodesInZone(zone string) int64 {
	for i, z := range p.Zones {
		if z == zone {
			n := int64(p.MaxNodes) / int64(len(p.Zones))
			if int64(i) < int64(p.MaxNodes)%int64(len(p.Zones)) {
				n++
			}
			return n
		}
	}
	return 0
}

// Node is one synthesised node.
type Node struct {
	InstanceType string
	Zone         string
	*corev1.Node
}

// Class is a workload class as its example workload will run.
type Class struct {
	Name string
	Pod  *corev1.Pod
	Info *PodInfo
	// Pods is how many pods run at once: replicas, or a Job's parallelism.
	Pods int32
	// Gang is true for Jobs: all pods must be placed together.
	Gang bool
}

// Cluster is the rendered fleet as the scheduler would see it at full size.
type Cluster struct {
	Pools   []Pool
	Classes []Class

	classes map[string]int // index of Classes by name, for Class
}

// FromTree reads the node groups and class examples back out of the
// rendered tree, so what is checked is exactly what is written. Managed
// node groups come from eksctl.yaml; pools only Karpenter provisions come
// from their NodePools in karpenter.yaml.
func FromTree(tree render.Tree, cat catalog.Catalog) (*Cluster, error) {
	raw, ok := tree[render.EksctlPath]
	if !ok {
		return nil, fmt.Errorf("check: %s missing from the tree", render.EksctlPath)
	}
	var cfg eksctl.ClusterConfig
	if err := yaml.UnmarshalStrict(raw, &cfg); err != nil {
		return nil, fmt.Errorf("check: %s: %w", render.EksctlPath, err)
	}
	groups := map[string]nodeGroup{}
	var names []string
	for _, ng := range cfg.ManagedNodeGroups {
		groups[ng.Name] = fromEksctl(ng)
		names = append(names, ng.Name)
	}
	nodePools, err := nodePoolsFrom(tree[render.KarpenterPath])
	if err != nil {
		return nil, fmt.Errorf("check: %s: %w", render.KarpenterPath, err)
	}
	for _, g := range nodePools {
		managed, ok := groups[g.name]
		if !ok {
			groups[g.name] = g
			names = append(names, g.name)
			continue
		}
		// A pool on both provisioners is checked once, as its managed node
		// group; its NodePool must launch the same nodes.
		if err := sameNodes(managed, g); err != nil {
			return nil, fmt.Errorf("check: pool %s: %s and %s disagree: %w", g.name, render.EksctlPath, render.KarpenterPath, err)
		}
	}
	sharing, err := render.SharingReplicas(tree[render.DevicePluginConfigPath])
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	c := &Cluster{}
	for _, name := range names {
		p, err := poolFrom(groups[name], cat, sharing)
		if err != nil {
			return nil, err
		}
		c.Pools = append(c.Pools, p)
	}
	var examples []string
	for _, f := range tree.Paths() {
		if path.Base(f) == "example.yaml" && strings.HasPrefix(f, "classes/") {
			examples = append(examples, f)
		}
	}
	c.Classes = make([]Class, len(examples))
	err = forEach(len(examples), func(i int) (err error) {
		f := examples[i]
		if c.Classes[i], err = classFrom(path.Base(path.Dir(f)), tree[f]); err != nil {
			return fmt.Errorf("check: %s: %w", f, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(c.Pools, func(i, j int) bool { return c.Pools[i].Name < c.Pools[j].Name })
	return c, nil
}

// nodeGroup is what the checker needs of a pool, whoever provisions it.
type nodeGroup struct {
	name         string
	spot         bool
	types, zones []string
	maxNodes     int32
	labels       map[string]string
	taints       []corev1.Taint
}

func fromEksctl(ng eksctl.ManagedNodeGroup) nodeGroup {
	g := nodeGroup{name: ng.Name, spot: ng.Spot, types: ng.InstanceTypes, zones: ng.AvailabilityZones, maxNodes: ng.MaxSize, labels: ng.Labels}
	for _, t := range ng.Taints {
		g.taints = append(g.taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
	}
	return g
}

// poolFrom synthesises the group's nodes. Their GPU resources are what the
// device plugin advertises under the node's labels: replicas from the
// device plugin ConfigMap entry the label names, MIG slices from the layout.
func poolFrom(ng nodeGroup, cat catalog.Catalog, sharing map[string]int64) (Pool, error) {
	p := Pool{Name: ng.name, Spot: ng.spot, Zones: ng.zones, MaxNodes: ng.maxNodes}
	replicas, layout := int64(1), ng.labels[catalog.LabelMIGConfig]
	if profile, ok := ng.labels[catalog.LabelDevicePluginConfig]; ok {
		if replicas, ok = sharing[profile]; !ok {
			return p, fmt.Errorf("check: node group %s: label %s names %q, which %s lacks", ng.name, catalog.LabelDevicePluginConfig, profile, render.DevicePluginConfigPath)
		}
	}
	for _, it := range ng.types {
		in, ok := cat[it]
		if !ok {
			return p, fmt.Errorf("check: node group %s: unknown instance type %q", ng.name, it)
		}
		if _, ok := catalog.MIGLayout(in.GPU, layout); layout != "" && !ok {
			return p, fmt.Errorf("check: node group %s: instance type %s has no MIG layout %q", ng.name, it, layout)
		}
		for _, zone := range ng.zones {
			if p.NodesInZone(zone) == 0 {
				continue // fewer nodes than zones: this zone gets none
			}
			name := fmt.Sprintf("%s-%s-%s", ng.name, it, zone)
			labels := map[string]string{
				labelHostname:      name,
				labelZone:          zone,
				labelInstanceType:  it,
				"kubernetes.io/os": "linux",
			}
			for k, v := range ng.labels {
				labels[k] = v
			}
			p.Nodes = append(p.Nodes, Node{InstanceType: it, Zone: zone, Node: &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
				Spec:       corev1.NodeSpec{Taints: ng.taints},
				Status: corev1.NodeStatus{
					Capacity:    in.Shared(in.Capacity(), replicas, layout),
					Allocatable: in.Shared(in.Allocatable(), replicas, layout),
				},
			}})
		}
	}
	return p, nil
}

// nodePoolsFrom reads the NodePools of karpenter.yaml (absent when no pool
// uses Karpenter). Nodes get the labels Karpenter sets from single-valued
// requirements and its own; the pool's max size is our annotation, since
// Karpenter bounds a pool by resources alone.
func nodePoolsFrom(raw []byte) ([]nodeGroup, error) {
	var groups []nodeGroup
	for _, doc := range bytes.Split(bytes.TrimPrefix(raw, []byte(render.Header)), []byte("\n---\n")) {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return nil, err
		}
		if tm.Kind != "NodePool" {
			continue
		}
		var np render.NodePool
		if err := yaml.UnmarshalStrict(doc, &np); err != nil {
			return nil, err
		}
		g := nodeGroup{name: np.Name, taints: np.Spec.Template.Spec.Taints, labels: map[string]string{render.LabelKarpenterNodePool: np.Name}}
		for k, v := range np.Spec.Template.Metadata.Labels {
			g.labels[k] = v
		}
		for _, r := range np.Spec.Template.Spec.Requirements {
			if r.Operator != corev1.NodeSelectorOpIn {
				return nil, fmt.Errorf("NodePool %s: requirement on %s: the checker reads only In", np.Name, r.Key)
			}
			switch r.Key {
			case labelInstanceType:
				g.types = r.Values
			case labelZone:
				g.zones = r.Values
			case render.LabelKarpenterCapacity:
				if len(r.Values) != 1 {
					return nil, fmt.Errorf("NodePool %s: %s must name one capacity type, got %v", np.Name, r.Key, r.Values)
				}
				g.spot = r.Values[0] == "spot"
				g.labels[r.Key] = r.Values[0]
			}
		}
		n, err := strconv.ParseInt(np.Annotations[render.AnnotationMaxNodes], 10, 32)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("NodePool %s: annotation %s: want the pool's max nodes, got %q", np.Name, render.AnnotationMaxNodes, np.Annotations[render.AnnotationMaxNodes])
		}
		g.maxNodes = int32(n)
		if len(g.types) == 0 || len(g.zones) == 0 {
			return nil, fmt.Errorf("NodePool %s: needs In requirements on %s and %s", np.Name, labelInstanceType, labelZone)
		}
		groups = append(groups, g)
	}
	return groups, nil
}

// sameNodes compares a managed node group with the NodePool of the same
// pool, leaving out the labels only Karpenter's nodes carry.
func sameNodes(managed, karp nodeGroup) error {
	labels := map[string]string{}
	for k, v := range karp.labels {
		if !strings.HasPrefix(k, "karpenter.sh/") {
			labels[k] = v
		}
	}
	switch {
	case managed.spot != karp.spot:
		return fmt.Errorf("spot %v and %v", managed.spot, karp.spot)
	case managed.maxNodes != karp.maxNodes:
		return fmt.Errorf("max nodes %d and %d", managed.maxNodes, karp.maxNodes)
	case !slices.Equal(managed.types, karp.types):
		return fmt.Errorf("instance types %v and %v", managed.types, karp.types)
	case !slices.Equal(managed.zones, karp.zones):
		return fmt.Errorf("zones %v and %v", managed.zones, karp.zones)
	case !maps.Equal(managed.labels, labels):
		return fmt.Errorf("labels %v and %v", managed.labels, labels)
	case !slices.EqualFunc(managed.taints, karp.taints, func(a, b corev1.Taint) bool { return a.MatchTaint(&b) && a.Value == b.Value }):
		return fmt.Errorf("taints %v and %v", managed.taints, karp.taints)
	}
	return nil
}

func classFrom(name string, raw []byte) (Class, error) {
	raw = bytes.TrimPrefix(raw, []byte(render.Header))
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(raw, &tm); err != nil {
		return Class{}, err
	}
	c := Class{Name: name, Pods: 1}
	var tpl corev1.PodTemplateSpec
	switch tm.Kind {
	case "Deployment":
		var d appsv1.Deployment
		if err := yaml.UnmarshalStrict(raw, &d); err != nil {
			return c, err
		}
		tpl, c.Pods = d.Spec.Template, deref(d.Spec.Replicas, 1)
	case "StatefulSet":
		var s appsv1.StatefulSet
		if err := yaml.UnmarshalStrict(raw, &s); err != nil {
			return c, err
		}
		tpl, c.Pods = s.Spec.Template, deref(s.Spec.Replicas, 1)
	case "Job":
		var j batchv1.Job
		if err := yaml.UnmarshalStrict(raw, &j); err != nil {
			return c, err
		}
		tpl, c.Pods, c.Gang = j.Spec.Template, deref(j.Spec.Parallelism, 1), true
	default:
		return c, fmt.Errorf("unexpected kind %q", tm.Kind)
	}
	c.Pod = &corev1.Pod{ObjectMeta: tpl.ObjectMeta, Spec: tpl.Spec}
	c.Pod.Name = name
	c.Info = NewPodInfo(c.Pod)
	return c, nil
}

func deref(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

// Class returns the class of that name, or nil.
func (c *Cluster) Class(name string) *Class {
	if len(c.classes) != len(c.Classes) {
		c.classes = make(map[string]int, len(c.Classes))
		for i := range c.Classes {
			c.classes[c.Classes[i].Name] = i
		}
	}
	if i, ok := c.classes[name]; ok && c.Classes[i].Name == name {
		return &c.Classes[i]
	}
	return nil
}
