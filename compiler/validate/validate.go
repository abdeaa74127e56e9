// Package validate checks what the schema cannot: names that become object
// names and paths, cross-references, quantities, and label and taint syntax.
// Every finding is positioned in the spec.
package validate

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud"
	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/load"
	"github.com/gpufleet/gpufleet/compiler/quantity"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

type checker struct {
	src   *load.Source
	f     *spec.Fleet
	cloud cloud.Cloud
	cat   catalog.Catalog
	errs  diag.List
}

// Fleet validates a loaded fleet against itself, its cloud's rules and
// the instance catalog.
func Fleet(src *load.Source, cl cloud.Cloud, cat catalog.Catalog) error {
	c := &checker{src: src, f: src.Fleet, cloud: cl, cat: cat}
	c.fleet()
	c.cluster()
	cl.Validate(c.f, cat, c.errorf)
	c.names()
	c.priorities()
	c.pools()
	c.classes()
	c.dra()
	c.tenants()
	c.cohorts()
	c.weights()
	c.instanceTypes()
	c.prices()
	return c.errs.Err()
}

func (c *checker) errorf(path []string, format string, args ...any) {
	c.errs = append(c.errs, c.src.Diag(fmt.Sprintf(format, args...), path...))
}

func p(parts ...string) []string { return parts }

// fleet checks what a fleet needs to compile into anything useful.
func (c *checker) fleet() {
	for _, s := range []struct {
		section string
		n       int
	}{{"priorities", len(c.f.Priorities)}, {"pools", len(c.f.Pools)}, {"classes", len(c.f.Classes)}, {"tenants", len(c.f.Tenants)}} {
		if s.n == 0 {
			c.errorf(p(s.section), "a fleet needs at least one entry in %s", s.section)
		}
	}
}

// names checks every name that becomes an object name or a path, first,
// because later checks may join them into file names.
func (c *checker) names() {
	check := func(what, section string, names []string) {
		for _, n := range names {
			for _, msg := range validation.IsDNS1123Label(n) {
				c.errorf(p(section, n), "%s name %q is invalid: %s", what, n, msg)
			}
		}
	}
	check("priority", "priorities", spec.Keys(c.f.Priorities))
	check("pool", "pools", spec.Keys(c.f.Pools))
	check("class", "classes", spec.Keys(c.f.Classes))
	check("tenant", "tenants", spec.Keys(c.f.Tenants))
	for _, name := range spec.Keys(c.f.Priorities) {
		if strings.HasPrefix(name, "system-") {
			c.errorf(p("priorities", name), "priority name %q is invalid: the prefix \"system-\" is reserved by Kubernetes", name)
		}
	}
	if msgs := validation.IsDNS1123Label(c.f.Cluster.Name); len(msgs) > 0 {
		c.errorf(p("cluster", "name"), "cluster name %q is invalid: %s", c.f.Cluster.Name, msgs[0])
	}
}

func (c *checker) priorities() {
	var defaults []string
	for _, name := range spec.Keys(c.f.Priorities) {
		if c.f.Priorities[name].Default {
			defaults = append(defaults, name)
		}
	}
	if len(defaults) > 1 {
		for _, name := range defaults[1:] {
			c.errorf(p("priorities", name, "default"), "more than one default priority: %s", strings.Join(defaults, ", "))
		}
	}
}

func (c *checker) quantity(q spec.Quantity, path ...string) {
	if q == "" {
		return
	}
	v, err := quantity.Parse(string(q))
	if err != nil {
		c.errorf(path, "invalid quantity %q: %v", string(q), err)
		return
	}
	if v.Sign() < 0 {
		c.errorf(path, "invalid quantity %q: must not be negative", string(q))
		return
	}
	if limit, ok := maxQuantity[path[len(path)-1]]; ok && v.Cmp(limit) > 0 {
		c.errorf(path, "quantity %q is more than %s, the most gpufleet accounts exactly (the checker sums and multiplies quantities in int64 milli-units)", string(q), limit.String())
	}
}

// maxQuantity bounds each kind of quantity far above any real cluster's, and
// low enough that the checker's milli-unit arithmetic (a gang's requests,
// quota plus borrowing) cannot overflow: 100Pi of memory, a common way to
// write "unlimited", wrapped around to a negative quota.
var maxQuantity = map[string]resource.Quantity{
	"cpu":    resource.MustParse("1M"),
	"memory": resource.MustParse("1Pi"),
}

func (c *checker) labels(labels map[string]string, path ...string) {
	for _, k := range spec.Keys(labels) {
		kp := append(append([]string{}, path...), k)
		for _, msg := range validation.IsQualifiedName(k) {
			c.errorf(kp, "label key %q is invalid: %s", k, msg)
		}
		for _, msg := range validation.IsValidLabelValue(labels[k]) {
			c.errorf(kp, "label value %q is invalid: %s", labels[k], msg)
		}
	}
}

func (c *checker) instanceTypes() {
	for _, name := range spec.Keys(c.f.InstanceTypes) {
		for _, msg := range validation.IsDNS1123Subdomain(name) {
			c.errorf(p("instanceTypes", name), "instance type name %q is invalid: %s", name, msg)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func duplicates(list []string) []int {
	seen := map[string]bool{}
	var dups []int
	for i, s := range list {
		if seen[s] {
			dups = append(dups, i)
		}
		seen[s] = true
	}
	return dups
}

// quoted lists values for a message: "a", "b".
func quoted(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
