package validate

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpufleet/gpufleet/compiler/spec"
)

// reservedNamespaces belong to the cluster, not to a tenant.
func reservedNamespace(ns string) bool {
	return ns == "default" || strings.HasPrefix(ns, "kube-")
}

func (c *checker) tenants() {
	type place struct{ tenant, pos string }
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
			if prev, ok := owner[ns]; ok {
				if prev.tenant == name {
					c.errorf(np, "namespace %q is listed twice", ns)
				} else {
					c.errorf(np, "namespace %q already belongs to tenant %q (%s)", ns, prev.tenant, prev.pos)
				}
				continue
			}
			owner[ns] = place{name, c.src.Pos(np...).String()}
		}
		for i, cl := range t.Classes {
			if _, ok := c.f.Classes[cl]; !ok {
				c.errorf(p("tenants", name, "classes", strconv.Itoa(i)), "tenant %q names class %q, which is not defined", name, cl)
			}
		}
		for _, i := range duplicates(t.Classes) {
			c.errorf(p("tenants", name, "classes", strconv.Itoa(i)), "class %q is listed twice", t.Classes[i])
		}
		c.quota(t.Quota, "tenants", name, "quota")
		c.quota(t.Borrow, "tenants", name, "borrow")
		for _, pr := range spec.Keys(t.PriorityQuotas) {
			if _, ok := c.f.Priorities[pr]; !ok {
				c.errorf(p("tenants", name, "priorityQuotas", pr), "priority %q is not defined", pr)
			}
			q := t.PriorityQuotas[pr]
			c.quota(&q, "tenants", name, "priorityQuotas", pr)
		}
		c.quantity(t.Defaults.CPU, "tenants", name, "defaults", "cpu")
		c.quantity(t.Defaults.Memory, "tenants", name, "defaults", "memory")
	}
}

func (c *checker) quota(q *spec.Quota, path ...string) {
	if q == nil {
		return
	}
	c.quantity(q.CPU, append(path, "cpu")...)
	c.quantity(q.Memory, append(path, "memory")...)
}
