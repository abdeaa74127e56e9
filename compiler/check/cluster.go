// Package check is the placement checker. It reads the rendered tree back,
// synthesises nodes from the node groups and pods from the class examples,
// and runs kube-scheduler's filters on them, with the scheduler's own
// semantics (k8s.io/component-helpers) and wording.
package check

import (
	"bytes"
	"fmt"
	"path"
	"sort"
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
}

// FromTree reads the node groups and class examples back out of the
// rendered tree, so what is checked is exactly what is written.
func FromTree(tree render.Tree, cat catalog.Catalog) (*Cluster, error) {
	raw, ok := tree[render.EksctlPath]
	if !ok {
		return nil, fmt.Errorf("check: %s missing from the tree", render.EksctlPath)
	}
	var cfg eksctl.ClusterConfig
	if err := yaml.UnmarshalStrict(raw, &cfg); err != nil {
		return nil, fmt.Errorf("check: %s: %w", render.EksctlPath, err)
	}
	c := &Cluster{}
	for _, ng := range cfg.ManagedNodeGroups {
		p, err := poolFrom(ng, cat)
		if err != nil {
			return nil, err
		}
		c.Pools = append(c.Pools, p)
	}
	for _, f := range tree.Paths() {
		if path.Base(f) != "example.yaml" || !strings.HasPrefix(f, "classes/") {
			continue
		}
		cl, err := classFrom(path.Base(path.Dir(f)), tree[f])
		if err != nil {
			return nil, fmt.Errorf("check: %s: %w", f, err)
		}
		c.Classes = append(c.Classes, cl)
	}
	sort.Slice(c.Pools, func(i, j int) bool { return c.Pools[i].Name < c.Pools[j].Name })
	return c, nil
}

func poolFrom(ng eksctl.ManagedNodeGroup, cat catalog.Catalog) (Pool, error) {
	p := Pool{Name: ng.Name, Spot: ng.Spot, Zones: ng.AvailabilityZones, MaxNodes: ng.MaxSize}
	var taints []corev1.Taint
	for _, t := range ng.Taints {
		taints = append(taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
	}
	for _, it := range ng.InstanceTypes {
		in, ok := cat[it]
		if !ok {
			return p, fmt.Errorf("check: node group %s: unknown instance type %q", ng.Name, it)
		}
		for _, zone := range ng.AvailabilityZones {
			if p.NodesInZone(zone) == 0 {
				continue // fewer nodes than zones: this zone gets none
			}
			name := fmt.Sprintf("%s-%s-%s", ng.Name, it, zone)
			labels := map[string]string{
				labelHostname:      name,
				labelZone:          zone,
				labelInstanceType:  it,
				"kubernetes.io/os": "linux",
			}
			for k, v := range ng.Labels {
				labels[k] = v
			}
			p.Nodes = append(p.Nodes, Node{InstanceType: it, Zone: zone, Node: &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
				Spec:       corev1.NodeSpec{Taints: taints},
				Status:     corev1.NodeStatus{Capacity: in.Capacity(), Allocatable: in.Allocatable()},
			}})
		}
	}
	return p, nil
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
	for i := range c.Classes {
		if c.Classes[i].Name == name {
			return &c.Classes[i]
		}
	}
	return nil
}
