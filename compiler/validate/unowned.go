package validate

import (
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpufleet/gpufleet/compiler/spec"
)

// unownedNamespaces checks cluster.unownedNamespaces.exempt: namespaces,
// each once, none a tenant's (a tenant's namespaces are held to its
// classes; exempting one would be a second, contrary rule).
func (c *checker) unownedNamespaces() {
	u := c.f.Cluster.UnownedNamespaces
	if u == nil {
		return
	}
	tenantOf := map[string]string{}
	for _, name := range spec.Keys(c.f.Tenants) {
		for _, ns := range c.f.Tenants[name].Namespaces {
			tenantOf[ns] = name
		}
	}
	for i, ns := range u.Exempt {
		np := p("cluster", "unownedNamespaces", "exempt", strconv.Itoa(i))
		for _, msg := range validation.IsDNS1123Label(ns) {
			c.errorf(np, "namespace %q is invalid: %s", ns, msg)
		}
		if t, ok := tenantOf[ns]; ok {
			c.errorf(np, "namespace %q belongs to tenant %q, whose classes its pods keep to: it cannot be exempt", ns, t)
		}
		if slices.Index(u.Exempt, ns) < i {
			c.errorf(np, "namespace %q is listed twice", ns)
		}
	}
}
