// Package spec holds the decoded fleet spec: the Go mirror of schema #Fleet,
// after CUE has applied defaults and constraints.
package spec

import (
	"encoding/json"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// Fleet is a whole fleet spec.
type Fleet struct {
	Cluster       Cluster                 `json:"cluster"`
	Priorities    map[string]Priority     `json:"priorities"`
	Pools         map[string]Pool         `json:"pools"`
	Classes       map[string]Class        `json:"classes"`
	Tenants       map[string]Tenant       `json:"tenants"`
	Cohorts       map[string]Cohort       `json:"cohorts,omitempty"`
	InstanceTypes map[string]InstanceType `json:"instanceTypes,omitempty"`
	Checks        *Checks                 `json:"checks,omitempty"`
	// Prices set the hourly prices of the report's cost figures.
	Prices *Prices `json:"prices,omitempty"`
	// Report chooses the report's optional files; nil writes them all.
	Report *ReportOptions `json:"report,omitempty"`
}

// ReportOptions choose the report's optional files.
type ReportOptions struct {
	// HTML writes report/placement.html; nil is the default, true.
	HTML *bool `json:"html,omitempty"`
}

// WritesHTML reports whether the tree gets report/placement.html: unless
// the spec says report.html: false.
func (o *ReportOptions) WritesHTML() bool {
	return o == nil || o.HTML == nil || *o.HTML
}

// Prices are the spec's hourly prices, in USD: on-demand ones override the
// catalog's, and spot ones are the only spot prices there are.
type Prices struct {
	// Region is the region whose built-in on-demand prices apply; empty
	// means the cluster's.
	Region        string                   `json:"region,omitempty"`
	InstanceTypes map[string]InstancePrice `json:"instanceTypes,omitempty"`
}

// InstancePrice is one instance type's hourly prices; nil is unset.
type InstancePrice struct {
	OnDemand *float64 `json:"onDemand,omitempty"`
	Spot     *float64 `json:"spot,omitempty"`
}

// Checks sets the severity ("error" or "warning") of the deny-side proofs.
type Checks struct {
	CPUOnGPU       string `json:"cpuOnGPU"`
	OnDemandOnSpot string `json:"onDemandOnSpot"`
	Dedicated      string `json:"dedicated"`
}

type Cluster struct {
	Provider string   `json:"provider"`
	Name     string   `json:"name"`
	Region   string   `json:"region"`
	Version  string   `json:"version"`
	Zones    []string `json:"zones"`
	// Karpenter configures the EC2NodeClass of Karpenter pools.
	Karpenter *KarpenterConfig `json:"karpenter,omitempty"`
	// DaemonSets run a pod on every node, before any class's: their
	// requests and a pod slot each come off every node's allocatable. Nil
	// takes EKS's own (aws-node and kube-proxy); a map replaces them.
	DaemonSets map[string]Resources `json:"daemonSets,omitempty"`
	// GPUAPI is how pools and classes that do not say get GPUs:
	// GPUAPIDevicePlugin (the default) or GPUAPIDRA.
	GPUAPI string `json:"gpuAPI,omitempty"`
	// UnownedNamespaces is how the admission policies hold pods in
	// namespaces no tenant owns; nil takes Deny with no exemptions but
	// the built-in ones.
	UnownedNamespaces *UnownedNamespaces `json:"unownedNamespaces,omitempty"`
	// Controllers are the usernames of the controllers whose controller
	// ownerReference stands for a queued workload's admission; nil takes
	// the default installs of the ML kinds' controllers in use
	// (derive.Controllers). kube-controller-manager's are always in.
	Controllers []string `json:"controllers,omitempty"`
}

// UnownedNamespaces is the admission of namespaces no tenant owns.
type UnownedNamespaces struct {
	// Admission is Deny, Warn, Audit or Off.
	Admission string `json:"admission,omitempty"`
	// Exempt are namespaces whose pods may reach the pools.
	Exempt []string `json:"exempt,omitempty"`
}

// KarpenterConfig is the cluster's Karpenter settings.
type KarpenterConfig struct {
	// Role is the nodes' IAM role; empty means KarpenterNodeRole-<cluster>.
	Role string `json:"role,omitempty"`
	// DRA says the cluster's Karpenter runs with its DRANVIDIAGPU feature
	// gate (the chart's settings.awsFeatureGates.draNVIDIAGPU, which also
	// turns IGNORE_DRA_REQUESTS off), so that it launches nodes for pods
	// that claim DRA devices. Both are alpha in Karpenter 1.15, so the
	// spec states it; the tree then holds the values to install it with.
	DRA bool `json:"dra,omitempty"`
}

type Priority struct {
	Value       int32  `json:"value"`
	Description string `json:"description,omitempty"`
	Default     bool   `json:"default"`
	Preemption  string `json:"preemption"`
}

type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

const (
	OnDemand   = "on-demand"
	Spot       = "spot"
	PreferSpot = "prefer-spot"
	AnyCap     = "any"
	Required   = "required"
	Preferred  = "preferred"
)

type Pool struct {
	InstanceTypes []string          `json:"instanceTypes"`
	Capacity      string            `json:"capacity"`
	Zones         []string          `json:"zones,omitempty"`
	Size          Size              `json:"size"`
	DedicatedTo   []string          `json:"dedicatedTo,omitempty"`
	Labels        map[string]string `json:"labels,omitempty"`
	Taints        []Taint           `json:"taints,omitempty"`
	// VolumeSizeGiB is the node volume; nil takes the per-pool default.
	VolumeSizeGiB *int32 `json:"volumeSizeGiB,omitempty"`
	// AMIFamily is "AmazonLinux2023" or "Bottlerocket"; the schema
	// defaults it, and empty (a Go-built spec) means AmazonLinux2023.
	AMIFamily string `json:"amiFamily,omitempty"`
	// EFA enables the Elastic Fabric Adapter (single zone, EFA types only).
	EFA bool `json:"efa,omitempty"`
	// Provisioner is "managed", "karpenter" or "both"; empty (a Go-built
	// spec) means managed.
	Provisioner string `json:"provisioner,omitempty"`
	// ZoneGroups gives the pool one managed node group per zone.
	ZoneGroups bool `json:"zoneGroups,omitempty"`
	// System pools run the tree's own components, which tolerate their
	// taints.
	System bool `json:"system,omitempty"`
	// Sharing time-slices (or MPS-shares) each GPU into replicas.
	Sharing *Sharing `json:"sharing,omitempty"`
	// MIG is a MIG layout, e.g. "all-1g.10gb".
	MIG string `json:"mig,omitempty"`
	// ExpireAfter is a Karpenter NodePool's node lifetime ("720h",
	// "Never"); empty takes the provider's default for the pool.
	ExpireAfter string `json:"expireAfter,omitempty"`
	// Topology gives the pool's ResourceFlavor a Kueue Topology of the
	// EC2 network layers its types are labelled with.
	Topology bool `json:"topology,omitempty"`
	// TopologyDomains declares, by level ("network-layer-N"), how many of
	// the pool's nodes each domain of that level holds (the last one the
	// rest), as a capacity block's placement says: the checker's TAS fit
	// is then exact at those levels.
	TopologyDomains map[string]int64 `json:"topologyDomains,omitempty"`
	// GPUAPI is how the pool's nodes offer GPUs, the cluster's if empty.
	GPUAPI string `json:"gpuAPI,omitempty"`
	// ExtendedResourceBridge lets a gpuAPI "dra" pool also take the pods
	// that ask for nvidia.com/gpu: kube-scheduler (DRAExtendedResource,
	// beta and on from 1.36) allocates them devices of the driver chart's
	// DeviceClass, whose extendedResourceName is nvidia.com/gpu.
	ExtendedResourceBridge bool `json:"extendedResourceBridge,omitempty"`
	// Reserved is the EC2 capacity reservations the pool's nodes launch
	// into (reserved.go).
	Reserved []Reservation `json:"reserved,omitempty"`
}

// Sharing is a pool's GPU sharing through the NVIDIA device plugin.
type Sharing struct {
	Strategy string `json:"strategy"` // "time-slicing" or "mps"
	Replicas int64  `json:"replicas"`
}

// Provisioners of a pool.
const (
	Managed   = "managed"
	Karpenter = "karpenter"
	Both      = "both"
)

// HasNodeGroup reports whether the pool gets an EKS managed node group.
func (p Pool) HasNodeGroup() bool { return p.Provisioner != Karpenter }

// NodeGroup is one EKS managed node group of a pool: its name and zones.
type NodeGroup struct {
	Name  string
	Zones []string
}

// NodeGroups names the managed node groups of the pool called name, whose
// zones are zones (the pool's, or the cluster's when it lists none): none
// for a pool Karpenter alone launches, the pool's own group over all its
// zones, or with zoneGroups one per zone, named <pool>-<zone>. The
// provisioner (compiler/nodegroup/eks) and validation, which refuses two
// pools making one name, both name groups here.
func (p Pool) NodeGroups(name string, zones []string) []NodeGroup {
	if !p.HasNodeGroup() {
		return nil
	}
	if !p.ZoneGroups || len(zones) < 2 {
		return []NodeGroup{{name, zones}}
	}
	out := make([]NodeGroup, len(zones))
	for i, z := range zones {
		out[i] = NodeGroup{name + "-" + z, []string{z}}
	}
	return out
}

// HasNodePool reports whether the pool gets a Karpenter NodePool.
func (p Pool) HasNodePool() bool { return p.Provisioner == Karpenter || p.Provisioner == Both }

// Baseline is the managed node group's share of a "both" pool: its min,
// or its desired size when larger. The group is held at that size and
// Karpenter launches the rest, so the two together never exceed max
// (Karpenter's limits count only the nodes it launched itself).
func (p Pool) Baseline() int32 {
	if p.Size.Desired != nil {
		return max(p.Size.Min, *p.Size.Desired)
	}
	return p.Size.Min
}

// ManagedMax is the most nodes the pool's managed node group launches.
func (p Pool) ManagedMax() int32 {
	if p.Provisioner == Both {
		return p.Baseline()
	}
	return p.Size.Max
}

// KarpenterMax is the most nodes the pool's NodePool launches.
func (p Pool) KarpenterMax() int32 {
	if p.Provisioner == Both {
		return p.Size.Max - p.Baseline()
	}
	return p.Size.Max
}

type Size struct {
	Min     int32  `json:"min"`
	Max     int32  `json:"max"`
	Desired *int32 `json:"desired,omitempty"`
}

type Class struct {
	Priority string `json:"priority"`
	Kind     string `json:"kind"`
	Replicas int32  `json:"replicas"`
	// Roles are an ML kind's pod templates (roles.go).
	Roles []Role `json:"roles,omitempty"`
	Gang  *int32 `json:"gang,omitempty"`
	GPU   *GPU   `json:"gpu,omitempty"`
	// EFA is the Elastic Fabric Adapter interfaces each pod requests
	// (vpc.amazonaws.com/efa); 0 requests none.
	EFA          int64     `json:"efa,omitempty"`
	Resources    Resources `json:"resources"`
	Capacity     string    `json:"capacity"`
	Queue        *bool     `json:"queue,omitempty"`
	Spread       *Spread   `json:"spread,omitempty"`
	AntiAffinity string    `json:"antiAffinity,omitempty"`
	// Topology is the gang's Kueue TAS placement (queued Jobs).
	Topology *Topology `json:"topology,omitempty"`
	// Rollout (Deployments only) is the rolling update's bounds.
	Rollout        *Rollout `json:"rollout,omitempty"`
	CheckpointSecs *int64   `json:"checkpointGracePeriodSeconds,omitempty"`
	// Checkpoint (Jobs only) says the work resumes from a checkpoint when
	// a pod is replaced; nil means true. False keeps Karpenter from
	// voluntarily disrupting its nodes while it runs.
	Checkpoint *bool `json:"checkpoint,omitempty"`
	// BackoffLimit (Jobs only) is the Job's backoffLimit: failures of the
	// work itself; disruptions never count. Nil takes derive's default.
	BackoffLimit *int32 `json:"backoffLimit,omitempty"`
	// MaxRunTime (queued batch kinds only) is how long one of its
	// workloads may run once admitted ("6h", "90m"): Kueue deactivates it
	// then (kueue.x-k8s.io/max-exec-time-seconds).
	MaxRunTime       string            `json:"maxRunTime,omitempty"`
	SchedulerName    string            `json:"schedulerName,omitempty"`
	SchedulerProfile string            `json:"schedulerProfile,omitempty"` // "binpack" or "spread"
	Container        string            `json:"container"`
	Image            string            `json:"image"`
	Tolerations      []Toleration      `json:"tolerations,omitempty"`
	NodeSelector     map[string]string `json:"nodeSelector,omitempty"`
	Affinity         Affinity          `json:"affinity"`
	InitContainers   []InitContainer   `json:"initContainers,omitempty"`
	RuntimeClass     string            `json:"runtimeClassName,omitempty"`
	Overhead         Resources         `json:"overhead"`
}

// Queued reports whether the class's workloads go through Kueue.
func (c Class) Queued() bool {
	if c.Queue != nil {
		return *c.Queue
	}
	return c.Batch()
}

// Pods is how many pods one instance of the class runs at once; for an
// ML kind, the pods of its primary role (PrimaryRole).
func (c Class) Pods() int32 {
	if c.Gang != nil {
		return *c.Gang
	}
	if r := c.PrimaryRole(); r != nil {
		return c.RolePods(*r)
	}
	return c.Replicas
}

// Rollout bounds a Deployment's rolling update: each is a count of pods
// or a percentage of replicas ("25%"), as in the Deployment API.
type Rollout struct {
	MaxSurge       *intstr.IntOrString `json:"maxSurge,omitempty"`
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
}

type GPU struct {
	Count        int64    `json:"count"`
	Products     []string `json:"products,omitempty"`
	MinMemoryGiB int64    `json:"minMemoryGiB,omitempty"`
	// MIG is a MIG profile ("1g.10gb"): the pod asks for slices of it.
	MIG string `json:"mig,omitempty"`
	// Shared asks for GPUs of time-sliced or MPS pools.
	Shared bool `json:"shared,omitempty"`
	// API is how the class's pods ask for GPUs, the cluster's if empty.
	API string `json:"api,omitempty"`
}

type Resources struct {
	CPU    Quantity `json:"cpu,omitempty"`
	Memory Quantity `json:"memory,omitempty"`
}

type Spread struct {
	Zones   string `json:"zones,omitempty"`
	Hosts   string `json:"hosts,omitempty"`
	MaxSkew int32  `json:"maxSkew"`
	// MinZones is the zone constraint's minDomains.
	MinZones *int32 `json:"minZones,omitempty"`
}

type Toleration struct {
	Key               string `json:"key,omitempty"`
	Operator          string `json:"operator"`
	Value             string `json:"value,omitempty"`
	Effect            string `json:"effect,omitempty"`
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

type Affinity struct {
	Required  []NodeSelectorTerm `json:"required,omitempty"`
	Preferred []PreferredTerm    `json:"preferred,omitempty"`
}

type NodeSelectorTerm struct {
	MatchExpressions []Requirement `json:"matchExpressions"`
}

type PreferredTerm struct {
	Weight int32            `json:"weight"`
	Term   NodeSelectorTerm `json:"term"`
}

type Requirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

type InitContainer struct {
	Name          string   `json:"name"`
	Image         string   `json:"image"`
	CPU           Quantity `json:"cpu,omitempty"`
	Memory        Quantity `json:"memory,omitempty"`
	RestartPolicy string   `json:"restartPolicy,omitempty"`
}

type Tenant struct {
	Namespaces     []string         `json:"namespaces"`
	Classes        []string         `json:"classes"`
	Quota          *Quota           `json:"quota,omitempty"`
	Borrow         *Quota           `json:"borrow,omitempty"`
	Lend           *Quota           `json:"lend,omitempty"`
	PoolQuotas     map[string]Quota `json:"poolQuotas,omitempty"`
	Cohort         string           `json:"cohort,omitempty"`
	Weight         *float64         `json:"weight,omitempty"`
	Queueing       string           `json:"queueing,omitempty"`
	PriorityQuotas map[string]Quota `json:"priorityQuotas,omitempty"`
	Defaults       Resources        `json:"defaults"`
	// Admission is the admission policies' action: Deny, Warn or Audit
	// ("" is Deny).
	Admission string `json:"admission,omitempty"`
}

// Cohort is a node of the Kueue cohort hierarchy.
type Cohort struct {
	Parent string   `json:"parent,omitempty"`
	Weight *float64 `json:"weight,omitempty"`
}

type Quota struct {
	GPU    *int64   `json:"gpu,omitempty"`
	CPU    Quantity `json:"cpu,omitempty"`
	Memory Quantity `json:"memory,omitempty"`
	Pods   *int64   `json:"pods,omitempty"`
}

type InstanceType struct {
	VCPU      int64   `json:"vcpu"`
	MemoryGiB float64 `json:"memoryGiB"`
	MaxPods   int64   `json:"maxPods"`
	// NetworkLayers is how many network-node-layer labels EC2 topology
	// gives the type's nodes; nil keeps the built-in type's.
	NetworkLayers *int         `json:"networkLayers,omitempty"`
	GPU           *GPUInstance `json:"gpu,omitempty"`
}

// Topology is a class's Kueue Topology Aware Scheduling request.
type Topology struct {
	Mode  string `json:"mode"`  // "required" or "preferred"
	Level string `json:"level"` // "host" or "network-layer-N"
	// Slice splits the gang into slices of Size pods, each within one
	// domain of Level (Kueue's podset-slice-* annotations).
	Slice *TopologySlice `json:"slice,omitempty"`
}

// TopologySlice is a sliced gang's slice: Size pods in one domain of Level.
type TopologySlice struct {
	Level string `json:"level"`
	Size  int32  `json:"size"`
}

// Topology levels.
const (
	LevelHost         = "host"
	LevelNetworkLayer = "network-layer-"
)

type GPUInstance struct {
	Count     int64  `json:"count"`
	Product   string `json:"product"`
	MemoryGiB int64  `json:"memoryGiB"`
}

// Quantity is a Kubernetes quantity as the spec wrote it: CUE allows a
// number or a string, and both keep their text here. It is parsed (with the
// spec position in the error) by validation.
type Quantity string

func (q *Quantity) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*q = Quantity(s)
		return nil
	}
	// A number keeps its text too: validation parses it, at its position
	// (a float64 refused 1E+400 here, with none).
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("quantity must be a string or a number, got %s", b)
	}
	*q = Quantity(n.String())
	return nil
}

// Keys returns a map's keys sorted, so every walk over the spec is deterministic.
func Keys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
