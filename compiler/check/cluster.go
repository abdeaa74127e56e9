// Package check is the placement checker. It reads the rendered tree back,
// synthesises nodes from the node groups and pods from the class examples,
// and runs kube-scheduler's filters on them, with the scheduler's own
// semantics (k8s.io/component-helpers) and wording.
package check

import (
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/deviceplugin"
)

// Pool is a node group as the cluster will see it at max size.
type Pool struct {
	Name     string
	Spot     bool
	Zones    []string
	MaxNodes int32
	// Nodes holds one synthesised node per instance type and populated zone.
	Nodes []Node
	// NoDevicePlugin says why the device plugin does not run on the
	// pool's GPU nodes (which then offer no GPUs); DevicePluginOnCPU, that
	// it runs on GPU-less ones.
	NoDevicePlugin    string
	DevicePluginOnCPU bool
	// NoEFAPlugin says why eksctl's EFA device plugin does not run on the
	// pool's EFA nodes (which then offer no EFA interfaces).
	NoEFAPlugin string
	// HostDevicePlugin pools (Bottlerocket) advertise their GPUs through
	// the host's plugin; a DaemonSet pod there would be a second one.
	HostDevicePlugin   bool
	DevicePluginOnHost bool
	// MPS pools share GPUs through the chart's MPS control daemon, which
	// must run on their nodes too; MPSDaemon says where it does.
	// NoMPSDaemon says why it does not.
	MPS         bool
	MPSDaemon   bool
	NoMPSDaemon string
	// MixedTypes describes the listed types of a group that launches its
	// first, when they differ (MixedTypes check).
	MixedTypes string
	// ZoneBlind pools scale up without choosing a zone (nodes.Group).
	ZoneBlind bool
	// KarpenterNodes of MaxNodes come only for pods that fit an instance
	// type as Karpenter computes it (nodes.Group). Where the device plugin
	// shares GPUs, LaunchGPUs is the most GPUs EC2 gives one of the pool's
	// types, all that Karpenter counts (KarpenterLaunch check), and
	// Replicas what each is shared as.
	KarpenterNodes       int32
	LaunchGPUs, Replicas int64
	// Live pools hold a running cluster's nodes, each once (FromLive).
	Live bool
	// Unpriced are listed types Karpenter never launches (KarpenterUnpriced).
	Unpriced *Unpriced
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
	// Pod is the pod kube-scheduler sees: after LimitRanger's defaults
	// (WithLimitRanges), where its tenants' namespaces have them.
	Pod  *corev1.Pod
	Info *PodInfo
	// Written is the pod as the tree writes it, where admission changes
	// it; Kueue applies each namespace's defaults to it itself.
	Written *corev1.Pod
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

// FromTree builds the cluster the scheduler would see at full size: the
// nodes of the providers' node groups (which compiler/provider reads back
// from their files in the tree) and the pods of the class examples in the
// tree, so what is checked is exactly what is written.
func FromTree(t tree.Typed, groups []nodes.Group, cat catalog.Catalog) (*Cluster, error) {
	sharing, err := deviceplugin.SharingProfiles(t.Tree[tree.DevicePluginConfigPath])
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	c := &Cluster{}
	for _, g := range groups {
		p, err := poolFrom(g, cat, sharing)
		if err != nil {
			return nil, err
		}
		c.Pools = append(c.Pools, p)
	}
	// Fleets with GPUs carry the device plugin's values; GPUs count only
	// where its daemon pod runs.
	dp, err := DevicePluginPod(t.Tree)
	if err != nil {
		return nil, err
	}
	if dp != nil || anyGPUs(c) {
		withDevicePlugin(c, dp)
	}
	withEFAPlugin(c)
	every, err := EveryNode(t.Tree)
	if err != nil {
		return nil, err
	}
	withDaemonSets(c, every, dp)
	names, examples := t.Examples()
	c.Classes = make([]Class, len(examples))
	err = forEach(len(examples), func(i int) (err error) {
		if c.Classes[i], err = classFrom(names[i], t, examples[i]); err != nil {
			return fmt.Errorf("check: %s: %w", examples[i], err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(c.Pools, func(i, j int) bool { return c.Pools[i].Name < c.Pools[j].Name })
	return c, nil
}

// poolFrom synthesises the group's nodes. Their GPU resources are what the
// device plugin advertises under the node's labels: replicas from the
// device plugin ConfigMap entry the label names, MIG slices from the layout.
func poolFrom(ng nodes.Group, cat catalog.Catalog, sharing map[string]deviceplugin.Profile) (Pool, error) {
	p := Pool{Name: ng.Pool, Spot: ng.Spot, Zones: ng.Zones, MaxNodes: ng.MaxNodes, HostDevicePlugin: ng.HostDevicePlugin, MixedTypes: mixedTypes(ng, cat), ZoneBlind: ng.ZoneBlind, Unpriced: unpriced(ng)}
	nodeLabels := ng.NodeLabels()
	replicas, layout := int64(1), nodeLabels[keys.LabelMIGConfig]
	if profile, ok := nodeLabels[keys.LabelDevicePluginConfig]; ok {
		s, ok := sharing[profile]
		if !ok {
			return p, fmt.Errorf("check: node group %s: label %s names %q, which %s lacks", ng.Pool, keys.LabelDevicePluginConfig, profile, tree.DevicePluginConfigPath)
		}
		replicas, p.MPS = s.Replicas, s.MPS
	}
	p.KarpenterNodes = ng.KarpenterNodes
	if replicas > 1 {
		p.Replicas = replicas
	}
	for _, it := range ng.Launched() {
		if p.Unpriced.has(it) {
			continue
		}
		in, ok := cat[it]
		if !ok {
			return p, fmt.Errorf("check: node group %s: unknown instance type %q", ng.Pool, it)
		}
		if _, ok := catalog.MIGLayout(in.GPU, layout); layout != "" && !ok {
			return p, fmt.Errorf("check: node group %s: instance type %s has no MIG layout %q", ng.Pool, it, layout)
		}
		if in.GPU != nil && p.Replicas > 1 {
			p.LaunchGPUs = max(p.LaunchGPUs, in.GPU.Count)
		}
		for _, zone := range ng.Zones {
			if p.NodesInZone(zone) == 0 {
				continue // fewer nodes than zones: this zone gets none
			}
			name := fmt.Sprintf("%s-%s-%s", ng.Pool, it, zone)
			labels := map[string]string{
				keys.LabelHostname:     name,
				keys.LabelZone:         zone,
				keys.LabelInstanceType: it,
				keys.LabelOS:           "linux",
			}
			for k, v := range nodeLabels {
				labels[k] = v
			}
			capacity, alloc := in.Shared(in.Capacity(), replicas, layout), in.Shared(in.Allocatable(), replicas, layout)
			if ng.EFA && in.EFA > 0 {
				efa := *resource.NewQuantity(in.EFA, resource.DecimalSI)
				capacity[keys.ResourceEFA], alloc[keys.ResourceEFA] = efa, efa
			}
			p.Nodes = append(p.Nodes, Node{InstanceType: it, Zone: zone, Node: &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
				Spec:       corev1.NodeSpec{Taints: ng.Taints},
				Status:     corev1.NodeStatus{Capacity: capacity, Allocatable: alloc},
			}})
		}
	}
	return p, nil
}

// classFrom reads the class's workload from its example, the file's first
// document; a headless Service or a PodDisruptionBudget may follow it.
// Render's own object is read where the tree kept it, its pod template
// copied, since checks may change a class's pod.
func classFrom(name string, t tree.Typed, p string) (Class, error) {
	c := Class{Name: name, Pods: 1}
	objs, docs := t.Documents(p)
	var workload any
	switch {
	case len(objs) > 0:
		workload = objs[0]
	case len(docs) > 0:
		var err error
		if workload, err = decodeWorkload(docs[0]); err != nil {
			return c, err
		}
	default:
		return c, fmt.Errorf("no workload")
	}
	var tpl *corev1.PodTemplateSpec
	switch w := workload.(type) {
	case *appsv1.Deployment:
		tpl, c.Pods = &w.Spec.Template, deref(w.Spec.Replicas, 1)
	case *appsv1.StatefulSet:
		tpl, c.Pods = &w.Spec.Template, deref(w.Spec.Replicas, 1)
	case *batchv1.Job:
		tpl, c.Pods, c.Gang = &w.Spec.Template, deref(w.Spec.Parallelism, 1), true
	default:
		return c, fmt.Errorf("unexpected workload %T", workload)
	}
	tpl = tpl.DeepCopy()
	c.Pod = &corev1.Pod{ObjectMeta: tpl.ObjectMeta, Spec: tpl.Spec}
	c.Pod.Name = name
	c.Info = NewPodInfo(c.Pod)
	return c, nil
}

// decodeWorkload decodes an example's first document by its kind.
func decodeWorkload(raw []byte) (any, error) {
	kind, err := tree.Kind(raw)
	if err != nil {
		return nil, err
	}
	var v any
	switch kind {
	case keys.KindDeployment:
		v = &appsv1.Deployment{}
	case keys.KindStatefulSet:
		v = &appsv1.StatefulSet{}
	case keys.KindJob:
		v = &batchv1.Job{}
	default:
		return nil, fmt.Errorf("unexpected kind %q", kind)
	}
	return v, yaml.UnmarshalStrict(raw, v)
}

func deref(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

// AsWritten is the class's pod as the tree writes it, before admission.
func (c *Class) AsWritten() *corev1.Pod {
	if c.Written != nil {
		return c.Written
	}
	return c.Pod
}

// indexClasses builds the index Class reads, if Classes changed since;
// called before looking classes up on several CPUs.
func (c *Cluster) indexClasses() {
	if len(c.classes) != len(c.Classes) {
		c.classes = make(map[string]int, len(c.Classes))
		for i := range c.Classes {
			c.classes[c.Classes[i].Name] = i
		}
	}
}

// Class returns the class of that name, or nil.
func (c *Cluster) Class(name string) *Class {
	c.indexClasses()
	if i, ok := c.classes[name]; ok && c.Classes[i].Name == name {
		return &c.Classes[i]
	}
	return nil
}
