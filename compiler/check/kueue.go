package check

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/internal/par"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// QueueIntent says which classes a tenant queues through which ClusterQueue.
type QueueIntent struct {
	Tenant       string
	ClusterQueue string
	// Namespace is where the tenant's work is checked: its first; its
	// LimitRange fills in requests the way Kueue does before it counts.
	Namespace string
	// Namespaces are all the tenant's, whose ResourceQuotas must allow
	// what the ClusterQueue admits.
	Namespaces []string
	Classes    []string // queued classes only
}

// Kueue checks the ClusterQueues and ResourceFlavors in the tree in Kueue's
// own terms, for every queued class a tenant may use: Kueue's flavor
// assigner (KueueModel, judged by ladder/kueue against Kueue itself) admits
// one whole workload of it on an empty cluster; the flavor it picks, and
// every flavor it could pick once others are in use, is a pool where the
// class lands and, for a gang, where the whole gang fits; every requested
// resource is covered; and the CRDs' limits hold.
func Kueue(tr tree.Typed, cl *Cluster, r *Report, queues []QueueIntent) error {
	m, err := NewKueueModel(tr)
	if err != nil {
		return err
	}
	for _, name := range sortedKeys(m.Flavors) {
		f := m.Flavors[name]
		if n := len(f.NodeLabels); n > kueue.MaxFlavorLabels {
			r.add(Finding{Severity: Error, Check: IDKueueLimits, Pool: name,
				Message: fmt.Sprintf("ResourceFlavor %s has %d nodeLabels; Kueue's CRD allows %d: drop extra pool labels", name, n, kueue.MaxFlavorLabels)})
		}
		if n := len(f.NodeTaints); n > kueue.MaxFlavorTaints {
			r.add(Finding{Severity: Error, Check: IDKueueLimits, Pool: name,
				Message: fmt.Sprintf("ResourceFlavor %s has %d nodeTaints; Kueue's CRD allows %d", name, n, kueue.MaxFlavorTaints)})
		}
	}
	for _, q := range queues {
		if m.Queues[q.ClusterQueue] == nil {
			return fmt.Errorf("check: ClusterQueue %s missing from the tree", q.ClusterQueue)
		}
	}
	// Queues are independent and the model, the cells and the classes are
	// only read: each is checked on its own CPU, its findings gathered in
	// queue order.
	r.indexCells()
	cl.indexClasses()
	memo := newKueueMemo(m, cl, queues)
	found := make([]sink, len(queues))
	par.Each(len(queues), func(i int) {
		r.kueueQueue(queues[i], cl, m.Queues[queues[i].ClusterQueue], m, memo, &found[i])
	})
	for _, f := range found {
		r.Findings = append(r.Findings, f...)
	}
	r.Sort()
	return nil
}

func (r *Report) add(f Finding) { r.Findings = append(r.Findings, f) }

// sink collects one queue's findings.
type sink []Finding

func (s *sink) add(f Finding) { *s = append(*s, f) }

func (r *Report) kueueQueue(q QueueIntent, cl *Cluster, cq *kueue.ClusterQueue, m *KueueModel, memo *kueueMemo, out *sink) {
	if m.Alone(cq.Name) && borrows(cq) {
		out.add(Finding{Severity: Warning, Check: IDKueueBorrow, Tenant: q.Tenant,
			Message: fmt.Sprintf("tenant %s may borrow in cohort %s, but its ClusterQueue is the only one in that cohort tree: there is nothing to borrow", q.Tenant, cq.Spec.CohortName)})
	}
	for _, rg := range cq.Spec.ResourceGroups {
		if len(rg.Flavors) > kueue.MaxFlavorsInGroup {
			out.add(Finding{Severity: Error, Check: IDKueueLimits, Tenant: q.Tenant,
				Message: fmt.Sprintf("ClusterQueue %s lists %d flavors in a resource group; Kueue's CRD allows %d", cq.Name, len(rg.Flavors), kueue.MaxFlavorsInGroup)})
		}
		for _, f := range rg.Flavors {
			var names []corev1.ResourceName
			for _, res := range f.Resources {
				names = append(names, res.Name)
			}
			if !slices.Equal(names, rg.CoveredResources) {
				out.add(Finding{Severity: Error, Check: IDKueueOrder, Tenant: q.Tenant, Pool: f.Name,
					Message: fmt.Sprintf("ClusterQueue %s flavor %s lists %v, not coveredResources' order %v", cq.Name, f.Name, names, rg.CoveredResources)})
			}
		}
	}
	kueueResourceQuota(q, cl, m, out)
	for _, name := range q.Classes {
		if c := cl.Class(name); c != nil {
			// Kueue counts the pod as the namespace's LimitRange leaves it.
			r.kueueClass(q, c, cq, m, memo.request(m, c, q.Namespace), memo.admitter(m, c), out)
		}
	}
}

func (r *Report) kueueClass(q QueueIntent, c *Class, cq *kueue.ClusterQueue, m *KueueModel, request corev1.ResourceList, admits admitter, out *sink) {
	pods := int32(1)
	if c.Gang {
		pods = c.Pods
	}
	covered := map[corev1.ResourceName]bool{}
	for _, rg := range cq.Spec.ResourceGroups {
		for _, res := range rg.CoveredResources {
			covered[res] = true
		}
	}
	for _, res := range resourceOrder(request) {
		if v := request[res]; !v.IsZero() && !covered[res] {
			out.add(Finding{Severity: Error, Check: IDKueueCovered, Tenant: q.Tenant, Class: c.Name,
				Message: fmt.Sprintf("tenant %s, class %s: resource %s unavailable in ClusterQueue %s", q.Tenant, c.Name, res, cq.Name)})
		}
	}
	a := m.assign(cq.Name, admits, request, pods)
	if !a.Admitted() {
		id := IDKueueFlavor
		if strings.Contains(a.Message, "insufficient quota") {
			id = IDKueueQuota
		}
		out.add(Finding{Severity: Error, Check: id, Tenant: q.Tenant, Class: c.Name,
			Message: fmt.Sprintf("tenant %s, class %s: ClusterQueue %s admits no workload of it: %s%s", q.Tenant, c.Name, cq.Name, a.Message, r.landsNowhereIn(c, cq))})
		return
	}
	// Kueue picks the first flavor that fits; once that one's quota is in
	// use, any later flavor that would hold the workload. Each must be a
	// pool where the class lands and, since Kueue adds the flavor's pool
	// label to every pod, where the whole gang fits.
	for _, f := range m.candidates(cq.Name, admits, request, pods) {
		cell := r.Cell(c.Name, f)
		switch {
		case cell == nil || !cell.Fits:
			out.add(Finding{Severity: Error, Check: IDKueueFlavor, Tenant: q.Tenant, Class: c.Name, Pool: f,
				Message: fmt.Sprintf("tenant %s: Kueue can admit class %s to flavor %s, but it cannot land on pool %s: its pods would stay Pending", q.Tenant, c.Name, f, f)})
		case c.Gang && cell.Capacity < int64(pods) && r.landsWhole(c, pods):
			out.add(Finding{Severity: Error, Check: IDKueueGang, Tenant: q.Tenant, Class: c.Name, Pool: f,
				Message: fmt.Sprintf("tenant %s: Kueue can admit class %s's gang of %d pods to flavor %s, whose pool holds %d of them at max size; the rest would stay Pending, holding the quota%s", q.Tenant, c.Name, pods, f, cell.Capacity, r.wholeGang(c, pods))})
		}
	}
}

func borrows(cq *kueue.ClusterQueue) bool {
	for _, rg := range cq.Spec.ResourceGroups {
		for _, f := range rg.Flavors {
			for _, r := range f.Resources {
				if r.BorrowingLimit == nil || !r.BorrowingLimit.IsZero() {
					return true
				}
			}
		}
	}
	return false
}

// landsNowhereIn says, when the class lands on none of the queue's
// flavors, where it does land: Kueue's reasons then speak of quota or
// labels, while the fix is a flavor (a poolQuotas entry) for such a pool.
func (r *Report) landsNowhereIn(c *Class, cq *kueue.ClusterQueue) string {
	for _, rg := range cq.Spec.ResourceGroups {
		for _, f := range rg.Flavors {
			if r.Fits(c.Name, f.Name) {
				return ""
			}
		}
	}
	var at []string
	for _, cell := range r.fitting(c) {
		at = append(at, cell.Pool)
	}
	if len(at) == 0 {
		return ""
	}
	return fmt.Sprintf(" (the class lands on none of its flavors; it lands on %s)", strings.Join(at, ", "))
}

// landsWhole reports whether the pools the class lands on hold its gang
// together; when they do not, Gang says so already.
func (r *Report) landsWhole(c *Class, pods int32) bool {
	var total int64
	for _, cell := range r.fitting(c) {
		total += cell.Capacity
	}
	return total >= int64(pods)
}

// fitting are the class's cells on the pools it lands on, in pool order:
// evaluated cells, since a ruled-out pool never fits.
func (r *Report) fitting(c *Class) []*Cell {
	w := r.Row(c.Name)
	if w == nil {
		return nil
	}
	var out []*Cell
	for k := range w.Evaluated {
		if w.Evaluated[k].Fits {
			out = append(out, &w.Evaluated[k])
		}
	}
	return out
}

// wholeGang names the pools that could hold the whole gang.
func (r *Report) wholeGang(c *Class, pods int32) string {
	var at []string
	for _, cell := range r.fitting(c) {
		if cell.Capacity >= int64(pods) {
			at = append(at, cell.Pool)
		}
	}
	if len(at) == 0 {
		return ": no pool holds it whole"
	}
	return ": pools that hold it whole: " + strings.Join(at, ", ")
}

// decodeAll appends the documents of the file at p to out (tree.DecodeAll),
// parsing YAML on every CPU.
func decodeAll[T any](tr tree.Typed, p string, out *[]T) error {
	return tree.DecodeAll(tr, p, out, forEach)
}
