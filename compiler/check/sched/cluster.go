// Package sched is the checker's scheduling model, with kube-scheduler's
// own semantics (k8s.io/component-helpers) and wording: the pools' nodes
// and the classes' pods (Cluster), its Filter plugins (NodeFilters), the
// class × pool cells and rows they give (Evaluate, Index, Row), and how
// many of a class's pods place at once under capacity, anti-affinity and
// spreads (Holds), or one by one on a cluster already running pods
// (FilterPopulated).
package sched

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// Pool is a node group as the cluster will see it at max size.
type Pool struct {
	Name     string
	Spot     bool
	Zones    []string
	MaxNodes int32
	// Standing are the nodes that exist with no pod pending (nodes.Group):
	// all Kueue's topology-aware scheduling places on, since it keeps a
	// Job suspended, its pods unmade, until it fits.
	Standing int32
	// FromZero names the pool's managed node groups that cluster-autoscaler
	// scales down to no node (min size 0; nodes.Group).
	FromZero []string
	// Nodes holds one synthesised node per instance type and populated zone.
	Nodes []Node
	// NoDevicePlugin says why the device plugin does not run on the
	// pool's GPU nodes (which then offer no GPUs); DevicePluginOnCPU, that
	// it runs on GPU-less ones.
	NoDevicePlugin    string
	DevicePluginOnCPU bool
	// NoDRAPlugin says why the NVIDIA DRA driver's kubelet plugin does not
	// run on the nodes of the pool's GPUs it is meant to publish (which
	// then publish no devices); DRAPluginOnDevicePlugin, that it runs on
	// nodes whose GPUs the device plugin advertises, and DevicePluginOnDRA,
	// that the device plugin runs on nodes meant for the DRA driver: both
	// would hand out the same GPUs.
	NoDRAPlugin                                string
	DRAPluginOnDevicePlugin, DevicePluginOnDRA bool
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
	// NoKarpenterDRA says why Karpenter launches none of its nodes for a
	// pod that claims DRA devices (KarpenterDRA check); "" where it does.
	NoKarpenterDRA string
	// Live pools hold a running cluster's nodes, each once (readback.FromLive).
	Live bool
	// Unpriced are listed types Karpenter never launches (KarpenterUnpriced).
	Unpriced *Unpriced
	// Reserved are the capacity reservations the pool launches into
	// first, paid for whether used or not; FallsBack pools launch
	// on-demand beyond them (nodes.Group).
	Reserved  []nodes.Reservation
	FallsBack bool
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
	// Devices are those the NVIDIA DRA driver's kubelet plugin publishes
	// in the node's ResourceSlice, where it runs.
	Devices []resourcev1.Device
}

// Class is a workload class as its example workload will run.
type Class struct {
	Name string
	// Pod is the pod kube-scheduler sees: after LimitRanger's defaults
	// (readback.WithLimitRanges), where its tenants' namespaces have them.
	Pod  *corev1.Pod
	Info *PodInfo
	// Written is the pod as the tree writes it, where admission changes
	// it; Kueue applies each namespace's defaults to it itself.
	Written *corev1.Pod
	// Kind is the workload's: Deployment, StatefulSet or Job.
	Kind string
	// Pods is how many pods run at once: replicas, or a Job's parallelism.
	Pods int32
	// Gang is true for a Job whose pods must all run at once (the spec's
	// gang); a Job without it runs its completions in waves.
	Gang bool
	// Queued is true where Kueue admits the workload: it then pins each
	// unit it admits to one flavor's pool (kueuemodel.Pin). PriorityClass
	// is then its WorkloadPriorityClass, which Kueue orders and preempts
	// workloads by.
	Queued        bool
	PriorityClass string
	// MaxExecSeconds is the Workload's spec.maximumExecutionTimeSeconds
	// Kueue makes of the workload's kueue.x-k8s.io/max-exec-time-seconds
	// label; 0 for none.
	MaxExecSeconds int32
	// MaxSurge and MaxUnavailable are a Deployment's rolling update in
	// pods, resolved as its controller resolves them.
	MaxSurge, MaxUnavailable int32
	// PodSets are an ML kind's roles, on its class's own row (its primary
	// role's): one workload's PodSets in its Kueue integration's order,
	// each a row of the cluster's. Of is, on a role's own row, its class.
	PodSets []PodSet
	Of      string
}

// PodSet is one role of an ML kind's workload: Kueue's PodSet of that
// name, Pods of the row Row's pods in one workload.
type PodSet struct {
	Name string
	Row  string
	Pods int32
}

// RoleRow names the row of a class's role that is not its primary one.
func RoleRow(class, role string) string { return spec.RoleRow(class, role) }

// Need is how many of the class's pods must run at once for it to make
// progress: every replica of a Deployment or StatefulSet, a gang whole,
// one pod of a Job that runs in waves.
func (c *Class) Need() int32 {
	if c.Kind == keys.KindJob && !c.Gang {
		return min(c.Pods, 1)
	}
	return c.Pods
}

// Cluster is the rendered fleet as the scheduler would see it at full size.
type Cluster struct {
	Pools   []Pool
	Classes []Class
	// System are the workloads the tree itself deploys that need a node
	// (its second scheduler), named namespace/name.
	System []Class

	classes map[string]int // index of Classes by name, for Class
}

// AsWritten is the class's pod as the tree writes it, before admission.
func (c *Class) AsWritten() *corev1.Pod {
	if c.Written != nil {
		return c.Written
	}
	return c.Pod
}

// IndexClasses builds the index Class reads, if Classes changed since;
// called before looking classes up on several CPUs.
func (c *Cluster) IndexClasses() {
	if len(c.classes) != len(c.Classes) {
		c.classes = make(map[string]int, len(c.Classes))
		for i := range c.Classes {
			c.classes[c.Classes[i].Name] = i
		}
	}
}

// Class returns the class of that name, or nil.
func (c *Cluster) Class(name string) *Class {
	c.IndexClasses()
	if i, ok := c.classes[name]; ok && c.Classes[i].Name == name {
		return &c.Classes[i]
	}
	return nil
}

// HasGPUs reports whether the node advertises GPUs.
func HasGPUs(n *corev1.Node) bool { return AnyGPU(n.Status.Capacity) }

// AnyGPU reports whether rl has some of a GPU resource.
func AnyGPU(rl corev1.ResourceList) bool {
	for r, q := range rl {
		if IsGPU(r) && !q.IsZero() {
			return true
		}
	}
	return false
}

// IsGPU reports whether a resource is GPUs: whole ones, or MIG slices.
func IsGPU(r corev1.ResourceName) bool {
	return r == keys.ResourceGPU || catalog.IsMIGResource(r)
}

// ErrReasonNoOffering is Karpenter's word for a pending pod when its
// NodePool has no available offering: the pool of such a NodePool refuses
// every class with it.
const ErrReasonNoOffering = "no instance type has the required offering"

// Unpriced are the types a Karpenter pool lists that Karpenter has no
// price for in Region (Types), and those it launches (Priced).
type Unpriced struct {
	Region        string
	Types, Priced []string
}

// Has reports whether Karpenter never launches the instance type it.
func (u *Unpriced) Has(it string) bool { return u != nil && slices.Contains(u.Types, it) }
