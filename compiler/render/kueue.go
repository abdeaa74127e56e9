package render

import (
	"path"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

func kueueMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: kueue.APIVersion, Kind: kind}
}

// kueue emits what Kueue needs before the checker has run: flavors,
// cohorts, priorities and each namespace's LocalQueue.
func (r *renderer) kueue() {
	var flavors, cohorts, wpcs []any
	for _, p := range r.d.Pools {
		m := meta(p.Name, "", nil)
		m.Annotations = derive.FlavorAnnotations(p)
		flavors = append(flavors, &kueue.ResourceFlavor{TypeMeta: kueueMeta("ResourceFlavor"), ObjectMeta: m, Spec: derive.Flavor(p)})
	}
	queued := false
	for _, t := range r.d.Tenants {
		queued = queued || t.HasClusterQueue()
		if t.Queued {
			r.emit(path.Join("tenants", t.Name, "localqueues.yaml"), localQueues(t, map[string]string{keys.LabelTenant: t.Name})...)
		}
	}
	for _, name := range cohortNames(r.d.Spec) {
		c := &kueue.Cohort{TypeMeta: kueueMeta("Cohort"), ObjectMeta: meta(name, "", nil)}
		if cs, ok := r.d.Spec.Cohorts[name]; ok {
			c.Spec.ParentName = cs.Parent
			c.Spec.FairSharing = weight(cs.Weight)
		}
		cohorts = append(cohorts, c)
	}
	for _, p := range r.d.Priorities {
		wpcs = append(wpcs, &kueue.WorkloadPriorityClass{TypeMeta: kueueMeta("WorkloadPriorityClass"), ObjectMeta: meta(p.Name, "", nil), Value: p.Value, Description: p.Description})
	}
	var files []string
	// A flavor's Topology before the flavor: Kueue treats a flavor whose
	// Topology it has not seen as holding no TAS information.
	if ts := r.d.Topologies(); len(ts) > 0 {
		var objs []any
		for _, t := range ts {
			spec := kueue.TopologySpec{}
			for _, l := range t.Levels {
				spec.Levels = append(spec.Levels, kueue.TopologyLevel{NodeLabel: l})
			}
			objs = append(objs, &kueue.Topology{TypeMeta: kueueMeta("Topology"), ObjectMeta: meta(t.Name, "", nil), Spec: spec})
		}
		files = append(files, path.Base(tree.KueueTopologiesPath))
		r.emit(tree.KueueTopologiesPath, objs...)
	}
	files = append(files, "resourceflavors.yaml")
	r.emit(tree.KueueFlavorsPath, flavors...)
	if len(cohorts) > 0 {
		files = append(files, "cohorts.yaml")
		r.emit(tree.KueueCohortsPath, cohorts...)
	}
	// The ClusterQueues follow the checker's verdicts (Queues).
	if queued {
		files = append(files, path.Base(tree.KueueQueuesPath))
	}
	files = append(files, path.Base(tree.KueuePrioritiesPath))
	r.emit(tree.KueuePrioritiesPath, wpcs...)
	r.kustomization("kueue", files)
}

// cohortNames are the declared cohorts, their parents and the cohorts
// tenants name, sorted.
func cohortNames(f *spec.Fleet) []string {
	seen := map[string]bool{}
	for name, c := range f.Cohorts {
		seen[name] = true
		if c.Parent != "" {
			seen[c.Parent] = true
		}
	}
	for _, t := range f.Tenants {
		if t.Cohort != "" {
			seen[t.Cohort] = true
		}
	}
	return spec.Keys(seen)
}

func weight(w *float64) *kueue.FairSharing {
	if w == nil {
		return nil
	}
	q := resource.MustParse(formatFloat(*w))
	return &kueue.FairSharing{Weight: &q}
}

func clusterQueue(t derive.Tenant, q *derive.Queue) *kueue.ClusterQueue {
	rg := kueue.ResourceGroup{CoveredResources: q.Covered, Flavors: []kueue.FlavorQuotas{}}
	for _, f := range q.Flavors {
		fq := kueue.FlavorQuotas{Name: f}
		for _, res := range q.Covered {
			rq := kueue.ResourceQuota{Name: res, NominalQuota: q.Nominal[f][res]}
			if v, ok := q.Borrow[f][res]; ok {
				rq.BorrowingLimit = &v
			}
			if v, ok := q.Lend[res]; ok {
				lend := v
				if lend.Cmp(rq.NominalQuota) > 0 {
					lend = rq.NominalQuota // a flavor cannot lend more than it has
				}
				rq.LendingLimit = &lend
			}
			fq.Resources = append(fq.Resources, rq)
		}
		rg.Flavors = append(rg.Flavors, fq)
	}
	preempt := q.Preemption
	var groups []kueue.ResourceGroup
	if len(rg.Flavors) > 0 { // Kueue requires at least one flavor in a group
		groups = []kueue.ResourceGroup{rg}
	}
	return &kueue.ClusterQueue{
		TypeMeta:   kueueMeta("ClusterQueue"),
		ObjectMeta: meta(t.Name, "", map[string]string{keys.LabelTenant: t.Name}),
		Spec: kueue.ClusterQueueSpec{
			CohortName: t.Spec.Cohort,
			// Exactly the tenant's namespaces: the API server sets this
			// label on every namespace, and no one can change it.
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: t.Spec.Namespaces,
			}}},
			ResourceGroups:   groups,
			QueueingStrategy: t.Spec.Queueing,
			Preemption:       &preempt,
			FairSharing:      weight(t.Spec.Weight),
		},
	}
}

func localQueues(t derive.Tenant, labels map[string]string) []any {
	var out []any
	for _, ns := range t.Spec.Namespaces {
		out = append(out, &kueue.LocalQueue{
			TypeMeta:   kueueMeta("LocalQueue"),
			ObjectMeta: meta(derive.LocalQueueName, ns, labels),
			Spec:       kueue.LocalQueueSpec{ClusterQueue: t.Name},
		})
	}
	return out
}
