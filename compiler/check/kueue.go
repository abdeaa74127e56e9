package check

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// QueueIntent says which classes a tenant queues through which ClusterQueue.
type QueueIntent struct {
	Tenant       string
	ClusterQueue string
	Classes      []string // queued classes only
}

// Kueue checks the ClusterQueues and ResourceFlavors in the tree in Kueue's
// own terms, for every queued class a tenant may use: some flavor admits
// it (Kueue's flavor assigner) on a pool where it lands; no flavor that
// admits it, with quota to spare, sends it where it cannot land; quota plus
// borrowing holds one whole workload; every requested resource is covered;
// and the CRDs' limits hold.
func Kueue(tr tree.Tree, r *Report, queues []QueueIntent) error {
	flavors := map[string]kueue.ResourceFlavorSpec{}
	var fs []kueue.ResourceFlavor
	if err := decodeAll(tr[tree.KueueFlavorsPath], &fs); err != nil {
		return fmt.Errorf("check: %s: %w", tree.KueueFlavorsPath, err)
	}
	for _, f := range fs {
		flavors[f.Name] = f.Spec
		if n := len(f.Spec.NodeLabels); n > kueue.MaxFlavorLabels {
			r.add(Finding{Severity: Error, Check: IDKueueLimits, Pool: f.Name,
				Message: fmt.Sprintf("ResourceFlavor %s has %d nodeLabels; Kueue's CRD allows %d: drop extra pool labels", f.Name, n, kueue.MaxFlavorLabels)})
		}
		if n := len(f.Spec.NodeTaints); n > kueue.MaxFlavorTaints {
			r.add(Finding{Severity: Error, Check: IDKueueLimits, Pool: f.Name,
				Message: fmt.Sprintf("ResourceFlavor %s has %d nodeTaints; Kueue's CRD allows %d", f.Name, n, kueue.MaxFlavorTaints)})
		}
	}
	var cqs []kueue.ClusterQueue
	if err := decodeAll(tr[tree.KueueQueuesPath], &cqs); err != nil {
		return fmt.Errorf("check: %s: %w", tree.KueueQueuesPath, err)
	}
	var cohorts []kueue.Cohort
	if err := decodeAll(tr[tree.KueueCohortsPath], &cohorts); err != nil {
		return fmt.Errorf("check: %s: %w", tree.KueueCohortsPath, err)
	}
	parent := map[string]string{}
	for _, c := range cohorts {
		parent[c.Name] = c.Spec.ParentName
	}
	root := func(cohort string) string {
		for i := 0; i < len(parent) && parent[cohort] != ""; i++ {
			cohort = parent[cohort]
		}
		return cohort
	}
	for i := range cqs {
		if cqs[i].Spec.CohortName != "" {
			cqs[i].Spec.CohortName = root(cqs[i].Spec.CohortName)
		}
	}
	byName := map[string]*kueue.ClusterQueue{}
	for i := range cqs {
		byName[cqs[i].Name] = &cqs[i]
	}
	all := newCohorts(cqs)
	for _, q := range queues {
		cq := byName[q.ClusterQueue]
		if cq == nil {
			return fmt.Errorf("check: ClusterQueue %s missing from the tree", q.ClusterQueue)
		}
		r.kueueQueue(q, cq, all, flavors)
	}
	r.Sort()
	return nil
}

func (r *Report) add(f Finding) { r.Findings = append(r.Findings, f) }

func (r *Report) kueueQueue(q QueueIntent, cq *kueue.ClusterQueue, all cohorts, flavors map[string]kueue.ResourceFlavorSpec) {
	for _, rg := range cq.Spec.ResourceGroups {
		if len(rg.Flavors) > kueue.MaxFlavorsInGroup {
			r.add(Finding{Severity: Error, Check: IDKueueLimits, Tenant: q.Tenant,
				Message: fmt.Sprintf("ClusterQueue %s lists %d flavors in a resource group; Kueue's CRD allows %d", cq.Name, len(rg.Flavors), kueue.MaxFlavorsInGroup)})
		}
		for _, f := range rg.Flavors {
			var names []corev1.ResourceName
			for _, res := range f.Resources {
				names = append(names, res.Name)
			}
			if !slices.Equal(names, rg.CoveredResources) {
				r.add(Finding{Severity: Error, Check: IDKueueOrder, Tenant: q.Tenant, Pool: f.Name,
					Message: fmt.Sprintf("ClusterQueue %s flavor %s lists %v, not coveredResources' order %v", cq.Name, f.Name, names, rg.CoveredResources)})
			}
		}
	}
	for _, name := range q.Classes {
		c := r.cluster.Class(name)
		if c == nil {
			continue
		}
		r.kueueClass(q, c, cq, all, flavors)
	}
}

func (r *Report) kueueClass(q QueueIntent, c *Class, cq *kueue.ClusterQueue, all cohorts, flavors map[string]kueue.ResourceFlavorSpec) {
	pods := int64(1)
	if c.Gang {
		pods = int64(c.Pods)
	}
	covered := map[corev1.ResourceName]bool{}
	for _, rg := range cq.Spec.ResourceGroups {
		for _, res := range rg.CoveredResources {
			covered[res] = true
		}
	}
	for _, res := range c.Info.requests {
		if !covered[res] {
			r.add(Finding{Severity: Error, Check: IDKueueCovered, Tenant: q.Tenant, Class: c.Name,
				Message: fmt.Sprintf("tenant %s, class %s: resource %s unavailable in ClusterQueue %s", q.Tenant, c.Name, res, cq.Name)})
		}
	}
	var why, short []string
	admitted := 0
	for _, rg := range cq.Spec.ResourceGroups {
		for _, f := range rg.Flavors {
			ok, reason := kueue.Admits(f.Name, flavors[f.Name], c.Pod)
			lands := r.Cell(c.Name, f.Name) != nil && r.Cell(c.Name, f.Name).Fits
			fits, lack := flavorHolds(c, pods, cq, f, all)
			switch {
			case !ok:
				why = append(why, reason)
			case !lands && fits:
				r.add(Finding{Severity: Error, Check: IDKueueFlavor, Tenant: q.Tenant, Class: c.Name, Pool: f.Name,
					Message: fmt.Sprintf("tenant %s: Kueue can admit class %s to flavor %s, but it cannot land on pool %s: its pods would stay Pending", q.Tenant, c.Name, f.Name, f.Name)})
			case !lands:
				why = append(why, fmt.Sprintf("class cannot land on pool %s", f.Name))
			case fits:
				admitted++
			default:
				short = append(short, lack)
			}
		}
	}
	switch {
	case admitted > 0:
	case len(short) > 0:
		r.add(Finding{Severity: Error, Check: IDKueueQuota, Tenant: q.Tenant, Class: c.Name,
			Message: fmt.Sprintf("tenant %s, class %s: couldn't assign flavors to pod set main: %s (ExceedsMaxQuota)", q.Tenant, c.Name, strings.Join(short, "; "))})
	default:
		if len(why) == 0 {
			why = []string{"no flavors"}
		}
		r.add(Finding{Severity: Error, Check: IDKueueFlavor, Tenant: q.Tenant, Class: c.Name,
			Message: fmt.Sprintf("tenant %s: no flavor in ClusterQueue %s admits class %s: %s", q.Tenant, cq.Name, c.Name, strings.Join(why, "; "))})
	}
}

// flavorHolds reports whether one whole workload fits the flavor's quota
// plus what the queue may borrow: what the rest of its cohort holds in that
// flavor, capped by its borrowingLimit.
func flavorHolds(c *Class, pods int64, cq *kueue.ClusterQueue, f kueue.FlavorQuotas, all cohorts) (bool, string) {
	for _, res := range f.Resources {
		req, ok := c.Info.Request[res.Name]
		if !ok || req.IsZero() {
			continue
		}
		need := req.DeepCopy()
		need.Mul(pods)
		max := res.NominalQuota.DeepCopy()
		if cq.Spec.CohortName != "" {
			// Borrowing is bounded by what the cohort has in this flavor.
			borrow := all.quota(cq, f.Name, res.Name)
			if res.BorrowingLimit != nil && res.BorrowingLimit.Cmp(borrow) < 0 {
				borrow = *res.BorrowingLimit
			}
			max.Add(borrow)
		}
		if need.Cmp(max) > 0 {
			return false, fmt.Sprintf("insufficient quota for %s in flavor %s, request > maximum capacity (%s > %s)", res.Name, f.Name, need.String(), max.String())
		}
	}
	return true, ""
}

// cohorts holds, per root cohort, flavor and resource, the nominal quota
// of all its ClusterQueues and of each: summed once, rather than over every
// queue for every class, which grew with the square of the tenants.
type cohorts map[cohortKey]*cohortQuota

type cohortKey struct {
	cohort, flavor string
	res            corev1.ResourceName
}

type cohortQuota struct {
	total resource.Quantity
	queue map[string]resource.Quantity
}

func newCohorts(all []kueue.ClusterQueue) cohorts {
	c := cohorts{}
	for _, o := range all {
		if o.Spec.CohortName == "" {
			continue
		}
		for _, rg := range o.Spec.ResourceGroups {
			for _, f := range rg.Flavors {
				for _, rq := range f.Resources {
					k := cohortKey{o.Spec.CohortName, f.Name, rq.Name}
					if c[k] == nil {
						c[k] = &cohortQuota{queue: map[string]resource.Quantity{}}
					}
					c[k].total.Add(rq.NominalQuota)
					own := c[k].queue[o.Name]
					own.Add(rq.NominalQuota)
					c[k].queue[o.Name] = own
				}
			}
		}
	}
	return c
}

// quota is the nominal quota the other queues of cq's cohort tree hold in
// a flavor: the most cq could borrow there. (Kueue then limits it by their
// lending limits; this is the upper bound.)
func (c cohorts) quota(cq *kueue.ClusterQueue, flavor string, res corev1.ResourceName) resource.Quantity {
	q := c[cohortKey{cq.Spec.CohortName, flavor, res}]
	if q == nil {
		return resource.Quantity{}
	}
	sum := q.total.DeepCopy()
	sum.Sub(q.queue[cq.Name])
	return sum
}

// decodeAll strictly decodes a generated YAML stream into a slice.
func decodeAll[T any](raw []byte, out *[]T) error {
	docs := tree.Docs(raw)
	vs := make([]T, len(docs))
	if err := forEach(len(docs), func(i int) error { return tree.Decode(docs[i], &vs[i]) }); err != nil {
		return err
	}
	*out = append(*out, vs...)
	return nil
}
