package derive

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// LocalQueueName is the LocalQueue in every tenant namespace: one name
// everywhere, so a class's template can name it whichever tenant uses it.
const LocalQueueName = "gpufleet"

// CoveredResources are what every ClusterQueue accounts, in this order;
// a tenant's queue also covers the MIG slices its classes request.
var CoveredResources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, keys.ResourceGPU}

// quotaUnit is the granularity quota is split in across flavors.
var quotaUnit = map[corev1.ResourceName]resource.Quantity{
	corev1.ResourceCPU:    resource.MustParse("1"),
	corev1.ResourceMemory: resource.MustParse("1Gi"),
	keys.ResourceGPU:      resource.MustParse("1"),
}

// Queue is a tenant's Kueue ClusterQueue, decided.
type Queue struct {
	// Flavors are pool names, in the order Kueue tries them.
	Flavors []string
	// Nominal is each flavor's nominal quota per covered resource.
	Nominal map[string]corev1.ResourceList
	// Covered is CoveredResources plus the tenant's MIG resources, sorted.
	Covered []corev1.ResourceName
	// Borrow is each flavor's borrowingLimit per covered resource, only
	// with a cohort; Lend is every flavor's lendingLimit.
	Borrow     map[string]corev1.ResourceList
	Lend       corev1.ResourceList
	Preemption kueue.Preemption
}

// Flavor is the ResourceFlavor of a pool: its labels select the pool's
// nodes, and its nodeTaints make Kueue admit only workloads that tolerate
// the pool's taints, as the scheduler will require.
func Flavor(p Pool) kueue.ResourceFlavorSpec {
	f := kueue.ResourceFlavorSpec{NodeLabels: p.Labels, NodeTaints: p.Taints}
	if p.Topology != nil {
		f.TopologyName = &p.Topology.Name
	}
	return f
}

// FlavorAnnotations are the pool's ResourceFlavor's annotations: its
// declared topology domains (keys.AnnotationTopologyDomains), or none.
func FlavorAnnotations(p Pool) map[string]string {
	if p.Topology == nil || len(p.Topology.Domains) == 0 {
		return nil
	}
	var b strings.Builder
	for i, l := range spec.Keys(p.Topology.Domains) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%d", l, p.Topology.Domains[l])
	}
	return map[string]string{keys.AnnotationTopologyDomains: b.String()}
}

func deriveQueue(t spec.Tenant, d *Fleet, l *landing) *Queue {
	// The tenant's classes, looked up once: each step below reads them.
	var classes []*Class
	for _, name := range t.Classes {
		if c := d.Class(name); c != nil {
			classes = append(classes, c)
		}
	}
	q := &Queue{Nominal: map[string]corev1.ResourceList{}, Covered: tenantCovered(classes, d.Cloud)}
	q.Flavors = tenantFlavors(t, classes, d, l)
	need := needs(t, classes, q.Covered, d, l)
	if len(t.PoolQuotas) > 0 {
		for _, p := range q.Flavors {
			pq := t.PoolQuotas[p]
			q.Nominal[p] = covered(&pq)
			// The spec has no MIG or EFA quota: a flavor offers its pool's,
			// or on a MIG pool the slices of the GPUs its quota names
			// (migSlices), as split gives them.
			for _, r := range q.Covered[len(CoveredResources):] {
				n := l.unitsOf(p, r)
				if catalog.IsMIGResource(r) && pq.GPU != nil {
					n = l.migSlices(p, r, *pq.GPU)
				}
				q.Nominal[p][r] = *resource.NewQuantity(n, resource.DecimalSI)
			}
		}
	} else {
		split(q, t.Quota, l, need)
	}
	// In a cohort every flavor gets a borrowingLimit: without one Kueue
	// lets a queue borrow all the cohort has, beyond the quota plus borrow
	// its namespaces' ResourceQuota allows, and the pods of what it
	// admitted would fail to be created.
	if t.Cohort != "" {
		splitBorrow(q, t.Borrow, l, need)
	}
	// Lending is limited only where the tenant says so: a resource lend
	// does not list is lent whole, as Kueue does without a lendingLimit.
	// (Limiting it to 0 made lent GPUs useless to a borrower who needs
	// CPU and memory with them.)
	if t.Cohort != "" && t.Lend != nil {
		q.Lend = listed(t.Lend)
	}
	q.Preemption = preemption(t, classes, d)
	return q
}

// tenantFlavors are the pools where one of the tenant's queued classes
// lands and whose flavor Kueue would assign it, spot first when a class
// prefers spot, then by name.
func tenantFlavors(t spec.Tenant, classes []*Class, d *Fleet, l *landing) []string {
	if len(t.PoolQuotas) > 0 {
		return orderFlavors(spec.Keys(t.PoolQuotas), classes, d)
	}
	var at []int
	for _, c := range classes {
		if c.Spec.Queued() {
			at = append(at, l.admittedOn(c)...)
		}
	}
	slices.Sort(at)
	out := make([]string, 0, len(at))
	for _, i := range slices.Compact(at) {
		out = append(out, d.Pools[i].Name)
	}
	return orderFlavors(out, classes, d)
}

// tenantCovered is CoveredResources, then the MIG and EFA resources of the
// tenant's classes in name order: Kueue rejects a workload asking for a
// resource its ClusterQueue does not cover.
func tenantCovered(classes []*Class, cl cloud.Cloud) []corev1.ResourceName {
	efa, _ := cl.Fabric()
	out := append([]corev1.ResourceName{}, CoveredResources...)
	mig := map[string]bool{}
	for _, c := range classes {
		if c.Spec.GPU != nil && c.Spec.GPU.MIG != "" {
			mig[string(GPUResource(c.Spec.GPU))] = true
		}
		if c.Spec.EFA > 0 {
			mig[string(efa)] = true
		}
	}
	for _, r := range spec.Keys(mig) {
		out = append(out, corev1.ResourceName(r))
	}
	return out
}

// unitOf is the quota unit of a resource: MIG slices count one by one.
func unitOf(r corev1.ResourceName) resource.Quantity {
	if u, ok := quotaUnit[r]; ok {
		return u
	}
	return resource.MustParse("1")
}

func orderFlavors(pools []string, classes []*Class, d *Fleet) []string {
	spotFirst := false
	for _, c := range classes {
		if c.Spec.Queued() && c.Spec.Capacity == spec.PreferSpot {
			spotFirst = true
		}
	}
	// A reserved pool's flavor comes first: its instances are paid for
	// whether used or not, and Kueue tries a ClusterQueue's flavors in
	// order (flavorassigner).
	rank := func(p string) int {
		switch {
		case d.Pool(p).Spec.IsReserved():
			return 0
		case (d.Pool(p).Spec.Capacity == spec.Spot) == spotFirst:
			return 1
		}
		return 2
	}
	sort.SliceStable(pools, func(i, j int) bool {
		if ri, rj := rank(pools[i]), rank(pools[j]); ri != rj {
			return ri < rj
		}
		return pools[i] < pools[j]
	})
	return pools
}

// needs is, per flavor, the most of each resource one whole workload of a
// queued class landing there asks for (a Job's parallel pods, a
// StatefulSet's replicas), as Kueue
// counts it in the tenant's namespaces.
func needs(t spec.Tenant, classes []*Class, covered []corev1.ResourceName, d *Fleet, l *landing) map[string]corev1.ResourceList {
	out := map[string]corev1.ResourceList{}
	for _, c := range classes {
		if !c.Spec.Queued() {
			continue
		}
		// Kueue admits a Job as one workload of all its parallel pods,
		// a StatefulSet as one pod group of all its replicas, and a
		// Deployment's pods one by one (kueuemodel.UnitPods).
		pods := int64(1)
		if c.Spec.Kind != keys.KindDeployment {
			pods = int64(c.Spec.Pods())
		}
		req := l.request(t, c)
		whole := make([]resource.Quantity, len(covered))
		for k, r := range covered {
			whole[k] = req[r].DeepCopy()
			whole[k].Mul(pods)
		}
		lands := l.lands(c)
		if len(c.Roles) > 0 {
			lands = l.landsRow(c.Name)
		}
		for _, i := range lands {
			atLeast(out, d.Pools[i].Name, covered, whole)
		}
		// An ML kind's other roles are PodSets of the same workload,
		// each on a flavor where it lands.
		for _, r := range c.Roles {
			row := spec.RoleRow(c.Name, r.Spec.Name)
			if r.Spec.Name == c.Spec.PrimaryRole().Name {
				continue
			}
			req := admittedRequest(t, r.Template.Spec)
			whole := make([]resource.Quantity, len(covered))
			for k, res := range covered {
				whole[k] = req[res].DeepCopy()
				whole[k].Mul(int64(r.Spec.Pods()))
			}
			for _, i := range l.landsRow(row) {
				atLeast(out, d.Pools[i].Name, covered, whole)
			}
		}
	}
	return out
}

// atLeast raises pool's need of each covered resource to whole's.
func atLeast(out map[string]corev1.ResourceList, pool string, covered []corev1.ResourceName, whole []resource.Quantity) {
	if out[pool] == nil {
		out[pool] = make(corev1.ResourceList, len(covered))
	}
	for k, r := range covered {
		if whole[k].Cmp(out[pool][r]) > 0 {
			out[pool][r] = whole[k]
		}
	}
}

// admittedRequest is one pod's request as Kueue counts it in the tenant's
// namespaces (workload.AdjustResources): the tenant's LimitRange defaults
// fill each container's and init container's missing limits and requests,
// as LimitRanger does when the pod is created, then missing requests come
// from limits. PodRequests then adds sidecars and takes the largest other
// init container, so a sidecar naming no memory counts the default.
func admittedRequest(t spec.Tenant, ps corev1.PodSpec) corev1.ResourceList {
	limits, requests := LimitDefaults(t)
	ps.InitContainers = slices.Clone(ps.InitContainers)
	ps.Containers = slices.Clone(ps.Containers)
	for _, cs := range [][]corev1.Container{ps.InitContainers, ps.Containers} {
		for i := range cs {
			rr := &cs[i].Resources
			rr.Limits = keepFirst(rr.Limits, limits)
			rr.Requests = keepFirst(keepFirst(rr.Requests, requests), rr.Limits)
		}
	}
	return resourcehelper.PodRequests(&corev1.Pod{Spec: ps}, resourcehelper.PodResourcesOptions{})
}

// LimitDefaults are the container defaults of the LimitRange in each of
// the tenant's namespaces, which render writes: zero GPUs, and the
// tenant's default CPU and memory requests.
func LimitDefaults(t spec.Tenant) (limits, requests corev1.ResourceList) {
	zero := *resource.NewQuantity(0, resource.DecimalSI)
	limits = corev1.ResourceList{keys.ResourceGPU: zero}
	requests = corev1.ResourceList{keys.ResourceGPU: zero}
	if t.Defaults.CPU != "" {
		requests[corev1.ResourceCPU] = resource.MustParse(string(t.Defaults.CPU))
	}
	if t.Defaults.Memory != "" {
		requests[corev1.ResourceMemory] = resource.MustParse(string(t.Defaults.Memory))
	}
	return limits, requests
}

// keepFirst is a with what b has and a lacks added, a left unchanged.
func keepFirst(a, b corev1.ResourceList) corev1.ResourceList {
	out := a.DeepCopy()
	for k, v := range b {
		if _, ok := out[k]; !ok {
			if out == nil {
				out = corev1.ResourceList{}
			}
			out[k] = v.DeepCopy()
		}
	}
	return out
}

func quotaName(r corev1.ResourceName) corev1.ResourceName {
	switch r {
	case corev1.ResourceCPU:
		return QuotaCPU
	case corev1.ResourceMemory:
		return QuotaMemory
	}
	return QuotaGPU
}

// covered is a spec quota as a per-flavor ResourceList of covered
// resources; absent resources are zero.
func covered(q *spec.Quota) corev1.ResourceList {
	rl := QuotaList(q)
	out := corev1.ResourceList{}
	for _, r := range CoveredResources {
		v, ok := rl[quotaName(r)]
		if !ok {
			v = *resource.NewQuantity(0, resource.DecimalSI)
		}
		out[r] = v
	}
	return out
}

// listed is a spec quota as a per-flavor ResourceList of the covered
// resources it names.
func listed(q *spec.Quota) corev1.ResourceList {
	rl := QuotaList(q)
	out := corev1.ResourceList{}
	for _, r := range CoveredResources {
		if v, ok := rl[quotaName(r)]; ok {
			out[r] = v
		}
	}
	return out
}

// preemption follows the priorities. Within the queue, lower priorities
// yield only when every queued class of the tenant may preempt: Kueue sets
// the policy per ClusterQueue, and a class whose priority says "Never"
// must not preempt. Within a cohort, a tenant reclaims its lent quota from
// anyone, and while borrowing may only preempt work at or below the
// highest priority that never preempts; Kueue allows that (borrowWithin
// Cohort) only with classical preemption, so not when the fleet sets
// fair-sharing weights.
func preemption(t spec.Tenant, classes []*Class, d *Fleet) kueue.Preemption {
	p := kueue.Preemption{ReclaimWithinCohort: "Never", WithinClusterQueue: "Never"}
	queued, never := 0, 0
	for _, c := range classes {
		if c.Spec.Queued() {
			queued++
			if d.Spec.Priorities[c.Spec.Priority].Preemption == "Never" {
				never++
			}
		}
	}
	if queued > 0 && never == 0 {
		p.WithinClusterQueue = "LowerPriority"
	}
	if t.Cohort == "" {
		return p
	}
	p.ReclaimWithinCohort = "Any"
	if FairSharing(d.Spec) {
		return p
	}
	var threshold *int32
	for _, pr := range d.Priorities {
		if pr.Preemption == "Never" && (threshold == nil || pr.Value > *threshold) {
			v := pr.Value
			threshold = &v
		}
	}
	if threshold != nil {
		p.BorrowWithinCohort = &kueue.BorrowWithinCohort{Policy: "LowerPriority", MaxPriorityThreshold: threshold}
	}
	return p
}

// FairSharing reports whether the fleet sets fair-sharing weights: they
// mean something only when Kueue runs with fair sharing enabled, which
// rules out borrowWithinCohort.
func FairSharing(f *spec.Fleet) bool {
	for _, t := range f.Tenants {
		if t.Weight != nil {
			return true
		}
	}
	for _, c := range f.Cohorts {
		if c.Weight != nil {
			return true
		}
	}
	return false
}
