// Package derive decides policy once: each pool's labels and taints, and
// each class's pod template (tolerations, affinity, priority, spread,
// resources). Every output is rendered from what is decided here.
package derive

import (
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud"
	"github.com/gpufleet/gpufleet/compiler/internal/par"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// Fleet is the derived policy, every list sorted by name.
type Fleet struct {
	Spec       *spec.Fleet
	Priorities []Priority
	Pools      []Pool
	Classes    []Class
	Tenants    []Tenant
	// Cloud is the cloud the spec's cluster.provider names.
	Cloud cloud.Cloud
	// System is where the tree's own components run.
	System System
}

// Priority is one PriorityClass.
type Priority struct {
	Name string
	spec.Priority
}

// Pool is one node group with the labels and taints its nodes carry.
type Pool struct {
	Name      string
	Spec      spec.Pool
	Zones     []string
	Instances []catalog.Instance
	// GPU is the pool's accelerator, nil for a CPU pool. Count is zero when
	// instance types differ in GPU count; MemoryGiB is the smallest.
	GPU    *catalog.GPU
	Labels map[string]string
	Taints []corev1.Taint
	// CloudLabels are the labels the cloud's node groups put on the pool's
	// nodes beside Labels (cloud.Cloud's NodeLabels); see NodeLabels.
	CloudLabels map[string]string
	// Fabric is the resource the cloud advertises EFA interfaces as.
	Fabric corev1.ResourceName
	// Topology is the Kueue Topology the pool's flavor names (topology:
	// true), nil for none.
	Topology *Topology
}

// Topology is a Kueue Topology: the network layers every type of a pool
// is labelled with, widest first, then the hostname.
type Topology struct {
	Name   string
	Levels []string
	// Domains are the pool's declared nodes per domain, by level label.
	Domains map[string]int64
}

// Class is a workload class and the pod template its workloads get.
type Class struct {
	Name     string
	Spec     spec.Class
	Template corev1.PodTemplateSpec
	// WorkloadLabels go on the workload object itself: Kueue's queue and
	// priority for queued classes.
	WorkloadLabels map[string]string
	// Pools dedicated to this class.
	Dedicated []string
	// Job is what a Job class sets on the Job; nil for other kinds.
	Job *JobPolicy
	// MaxUnavailable is the serving workload's PodDisruptionBudget; nil
	// for none.
	MaxUnavailable *int32
	// Strategy is a Deployment's rolling update; nil for other kinds.
	Strategy *appsv1.DeploymentStrategy
	// Claim is a DRA class's GPU claim; nil for other classes.
	Claim *Claim
	// Roles are an ML kind's pod templates, in the spec's order; Template
	// is then its primary role's (spec.Class.PrimaryRole).
	Roles []Role
}

// Role is one of an ML kind's pod templates.
type Role struct {
	Spec     spec.Role
	Template corev1.PodTemplateSpec
}

// Tenant is a tenant with the classes it may use, resolved.
type Tenant struct {
	Name string
	Spec spec.Tenant
	// Hard is each namespace's ResourceQuota: nominal quota plus
	// borrowing (or its share of Unqueued, with no ClusterQueue).
	Hard corev1.ResourceList
	// MaxGPUPerPod is the most GPUs any of the tenant's classes asks for in
	// one pod: the LimitRange's per-pod maximum.
	MaxGPUPerPod int64
	// Queued is whether any of its classes goes through Kueue: only then
	// does it get LocalQueues and, unless it lends per-pool quota to its
	// cohort, a ClusterQueue (one with no flavors would hold whatever is
	// queued there for ever, silently).
	Queued bool
	// Unqueued is, for a tenant with a quota, several namespaces and an
	// unqueued class, each namespace's share of the quota for the pods of
	// UnqueuedPriorities (its unqueued classes' PriorityClasses): a
	// ResourceQuota scoped to them (UnqueuedQuotaName). Nil otherwise.
	Unqueued           map[string]corev1.ResourceList
	UnqueuedPriorities []string
}

// HasClusterQueue reports whether the tenant gets a ClusterQueue: it
// queues a class, or it has per-pool quota to lend in a cohort.
func (t *Tenant) HasClusterQueue() bool {
	return t.Queued || (t.Spec.Cohort != "" && len(t.Spec.PoolQuotas) > 0)
}

// Derive computes the policy of a validated fleet.
func Derive(f *spec.Fleet, cl cloud.Cloud, cat catalog.Catalog) *Fleet {
	f = withPrimaryRoles(f)
	d := &Fleet{Spec: f, Cloud: cl}
	for _, name := range spec.Keys(f.Priorities) {
		d.Priorities = append(d.Priorities, Priority{Name: name, Priority: f.Priorities[name]})
	}
	dedicated := map[string][]string{}
	for _, name := range spec.Keys(f.Pools) {
		pool := derivePool(name, f.Pools[name], f.Cluster.Zones, cl, cat)
		d.Pools = append(d.Pools, pool)
		for _, cl := range pool.Spec.DedicatedTo {
			dedicated[cl] = append(dedicated[cl], name)
		}
	}
	for _, name := range spec.Keys(f.Classes) {
		d.Classes = append(d.Classes, deriveClass(name, f.Classes[name], dedicated[name], cl))
	}
	for _, name := range spec.Keys(f.Tenants) {
		d.Tenants = append(d.Tenants, deriveTenant(name, f.Tenants[name], f.Classes))
	}
	withGPUAPI(d, cat)
	withNamespaceShares(d)
	d.System = system(d.Pools)
	return d
}

// Queues is the pipeline's second derive pass, the one that needs the
// placement checker: every tenant's ClusterQueue, in tenant order. A queue
// offers a pool as a flavor only where the checker proved one of the
// tenant's classes can land: landsOn names those pools for a class. (Asking
// pool by pool would be classes × pools questions, 4.5 M at XL.)
func Queues(d *Fleet, landsOn func(class string) []string) []*Queue {
	l := newLanding(d, landsOn)
	l.prepare(d.Tenants)
	// Tenants are independent once their classes' pools are known: each
	// is decided on its own CPU, into its own index.
	out := make([]*Queue, len(d.Tenants))
	par.EachWith(len(d.Tenants), l.worker, func(i int, w *landing) {
		out[i] = deriveQueue(d.Tenants[i].Spec, d, w)
	})
	return out
}

// Pool returns the derived pool of that name.
func (d *Fleet) Pool(name string) *Pool {
	// Derive lists pools by name; big fleets look pools up per tenant.
	if i := sort.Search(len(d.Pools), func(i int) bool { return d.Pools[i].Name >= name }); i < len(d.Pools) && d.Pools[i].Name == name {
		return &d.Pools[i]
	}
	return &Pool{}
}

// CapacityUnits is how many units of r the pool holds at max size, on its
// largest instance type (on a reservation-only pool, its reserved
// instances: launchable).
func (p *Pool) CapacityUnits(r corev1.ResourceName, unit resource.Quantity) int64 {
	return p.launchable(func(in catalog.Instance) int64 {
		q := in.Capacity()[r]
		if r == corev1.ResourceCPU {
			return q.MilliValue() / unit.MilliValue()
		}
		return q.Value() / unit.Value()
	})
}

// Class returns the derived class of that name.
func (d *Fleet) Class(name string) *Class {
	// Derive lists classes by name.
	if i := sort.Search(len(d.Classes), func(i int) bool { return d.Classes[i].Name >= name }); i < len(d.Classes) && d.Classes[i].Name == name {
		return &d.Classes[i]
	}
	return nil
}
