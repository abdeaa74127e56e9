package validate

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpufleet/gpufleet/compiler/internal/suggest"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/argocd"
	"github.com/gpufleet/gpufleet/compiler/wire/deviceplugin"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
)

// reservedNamespaces belong to the cluster, not to a tenant.
func reservedNamespace(ns string) bool {
	return ns == "default" || strings.HasPrefix(ns, "kube-")
}

// ownedNamespaces are the namespaces the tree puts gpufleet's own objects
// in, and why. A tenant's would give the tree a second Namespace object
// (which kustomize refuses) and put the agent's pods under the tenant's
// ResourceQuota and LimitRange. (The scheduler's, kube-system, is
// reserved.) TestOwnedNamespacesRefused holds this list to the example
// fleets' trees.
var ownedNamespaces = map[string]string{
	deviceplugin.Namespace: "the tree creates it for the NVIDIA device plugin",
	argocd.Namespace:       "the tree puts the device plugin's Argo CD Application there",
	dradriver.Namespace:    "the tree creates it for the NVIDIA DRA driver",
}

func (c *checker) tenants() {
	// The first owner's position is looked up only for a duplicate: a
	// lookup walks the CUE value, and there is a namespace per tenant.
	type place struct {
		tenant string
		path   []string
	}
	owner := map[string]place{}
	for _, name := range spec.Keys(c.f.Tenants) {
		t := c.f.Tenants[name]
		for i, ns := range t.Namespaces {
			np := p("tenants", name, "namespaces", strconv.Itoa(i))
			for _, msg := range validation.IsDNS1123Label(ns) {
				c.errorf(np, "namespace %q is invalid: %s", ns, msg)
			}
			if reservedNamespace(ns) {
				c.errorf(np, "namespace %q is reserved for the cluster", ns)
			}
			if why, ok := ownedNamespaces[ns]; ok {
				c.errorf(np, "namespace %q is gpufleet's: %s, and a tenant's quota would govern its pods", ns, why)
			}
			if prev, ok := owner[ns]; ok {
				if prev.tenant == name {
					c.errorf(np, "namespace %q is listed twice", ns)
				} else {
					c.errorf(np, "namespace %q already belongs to tenant %q (%s)", ns, prev.tenant, c.src.Pos(prev.path...).String())
				}
				continue
			}
			owner[ns] = place{name, np}
		}
		for i, cl := range t.Classes {
			if _, ok := c.f.Classes[cl]; !ok {
				c.errorf(p("tenants", name, "classes", strconv.Itoa(i)), "tenant %q names class %q, which is not defined%s", name, cl, suggest.Hint(cl, spec.Keys(c.f.Classes)))
			}
		}
		for _, i := range duplicates(t.Classes) {
			c.errorf(p("tenants", name, "classes", strconv.Itoa(i)), "class %q is listed twice", t.Classes[i])
		}
		c.quota(t.Quota, "tenants", name, "quota")
		c.quotaInTotal(name, t)
		c.quota(t.Borrow, "tenants", name, "borrow")
		for _, pr := range spec.Keys(t.PriorityQuotas) {
			if _, ok := c.f.Priorities[pr]; !ok {
				c.errorf(p("tenants", name, "priorityQuotas", pr), "priority %q is not defined%s", pr, suggest.Hint(pr, spec.Keys(c.f.Priorities)))
			}
			q := t.PriorityQuotas[pr]
			c.quota(&q, "tenants", name, "priorityQuotas", pr)
		}
		if t.Cohort == "" {
			for field, q := range map[string]*spec.Quota{"borrow": t.Borrow, "lend": t.Lend} {
				if q != nil {
					c.errorf(p("tenants", name, field), "%s needs a cohort: Kueue allows borrowing and lending only within one (borrowingLimit must be nil when cohort is empty)", field)
				}
			}
		} else {
			for _, msg := range validation.IsDNS1123Label(t.Cohort) {
				c.errorf(p("tenants", name, "cohort"), "cohort name %q is invalid: %s", t.Cohort, msg)
			}
		}
		c.quota(t.Lend, "tenants", name, "lend")
		for _, pool := range spec.Keys(t.PoolQuotas) {
			if _, ok := c.f.Pools[pool]; !ok {
				c.errorf(p("tenants", name, "poolQuotas", pool), "pool %q is not defined%s", pool, suggest.Hint(pool, spec.Keys(c.f.Pools)))
			}
			q := t.PoolQuotas[pool]
			c.quota(&q, "tenants", name, "poolQuotas", pool)
		}
		c.quantity(t.Defaults.CPU, "tenants", name, "defaults", "cpu")
		c.quantity(t.Defaults.Memory, "tenants", name, "defaults", "memory")
	}
}

// cohorts checks names and that parents form a tree.
func (c *checker) cohorts() {
	for _, name := range spec.Keys(c.f.Cohorts) {
		for _, msg := range validation.IsDNS1123Label(name) {
			c.errorf(p("cohorts", name), "cohort name %q is invalid: %s", name, msg)
		}
		seen := map[string]bool{name: true}
		for cur := c.f.Cohorts[name].Parent; cur != ""; cur = c.f.Cohorts[cur].Parent {
			if seen[cur] {
				c.errorf(p("cohorts", name, "parent"), "cohort %q is its own ancestor: parents must form a tree", name)
				break
			}
			seen[cur] = true
		}
	}
}

func (c *checker) quota(q *spec.Quota, path ...string) {
	if q == nil {
		return
	}
	c.quantity(q.CPU, append(path, "cpu")...)
	c.quantity(q.Memory, append(path, "memory")...)
}

// quotaInTotal refuses a tenant whose quota cannot hold in total across
// its namespaces: Kubernetes has no quota across namespaces, so derive
// splits the quota of its unqueued classes over them with a ResourceQuota
// scoped to those classes' PriorityClasses (Kueue holds the queued ones
// across them). A queued class at one of those priorities would be
// counted against the split too, and Kueue does not see it.
func (c *checker) quotaInTotal(name string, t spec.Tenant) {
	if t.Quota == nil || len(t.Namespaces) < 2 {
		return
	}
	queued, unqueued := map[string]string{}, map[string]string{}
	for _, cl := range t.Classes {
		if k, ok := c.f.Classes[cl]; ok {
			side := unqueued
			if k.Queued() {
				side = queued
			}
			if _, seen := side[k.Priority]; !seen {
				side[k.Priority] = cl
			}
		}
	}
	for _, pr := range spec.Keys(unqueued) {
		if q, ok := queued[pr]; ok {
			c.errorf(p("tenants", name, "quota"), "tenant %q's quota cannot hold in total over its %d namespaces: class %q is not queued and class %q is, both at priority %q, so the ResourceQuota that splits the unqueued classes' quota over the namespaces (scoped to their PriorityClasses) would count Kueue's work too; give them different priorities, queue both, or keep the tenant to one namespace", name, len(t.Namespaces), unqueued[pr], q, pr)
		}
	}
}
