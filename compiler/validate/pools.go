package validate

import (
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

func (c *checker) pools() {
	for _, i := range duplicates(c.f.Cluster.Zones) {
		c.errorf(p("cluster", "zones", strconv.Itoa(i)), "zone %q is listed twice", c.f.Cluster.Zones[i])
	}
	for _, name := range spec.Keys(c.f.Pools) {
		pool := c.f.Pools[name]
		for i, z := range pool.Zones {
			if !contains(c.f.Cluster.Zones, z) {
				c.errorf(p("pools", name, "zones", strconv.Itoa(i)), "zone %q is not one of the cluster's zones (%s)", z, quoted(c.f.Cluster.Zones))
			}
		}
		for _, i := range duplicates(pool.Zones) {
			c.errorf(p("pools", name, "zones", strconv.Itoa(i)), "zone %q is listed twice", pool.Zones[i])
		}
		c.poolInstances(name, pool)
		for i, cl := range pool.DedicatedTo {
			if _, ok := c.f.Classes[cl]; !ok {
				c.errorf(p("pools", name, "dedicatedTo", strconv.Itoa(i)), "pool is dedicated to class %q, which is not defined", cl)
			}
		}
		c.labels(pool.Labels, "pools", name, "labels")
		for _, k := range spec.Keys(pool.Labels) {
			if derive.Reserved(k) {
				c.errorf(p("pools", name, "labels", k), "label key %q is reserved: gpufleet derives it", k)
			}
		}
		for i, t := range pool.Taints {
			tp := p("pools", name, "taints", strconv.Itoa(i))
			for _, msg := range validation.IsQualifiedName(t.Key) {
				c.errorf(tp, "taint key %q is invalid: %s", t.Key, msg)
			}
			for _, msg := range validation.IsValidLabelValue(t.Value) {
				c.errorf(tp, "taint value %q is invalid: %s", t.Value, msg)
			}
			if derive.Reserved(t.Key) {
				c.errorf(tp, "taint key %q is reserved: gpufleet derives it", t.Key)
			}
		}
	}
}

// poolInstances checks that every instance type is known and that a pool is
// homogeneous in its GPU product, because node labels are per node group.
func (c *checker) poolInstances(name string, pool spec.Pool) {
	product, first := "", ""
	for i, it := range pool.InstanceTypes {
		ip := p("pools", name, "instanceTypes", strconv.Itoa(i))
		in, ok := c.cat[it]
		if !ok {
			c.errorf(ip, "unknown instance type %q: define it in the fleet's top-level instanceTypes", it)
			continue
		}
		got := ""
		if in.GPU != nil {
			got = in.GPU.Product
		}
		if first == "" {
			product, first = got, it
			continue
		}
		if got != product {
			c.errorf(ip, "instance type %q (%s) mixes with %q (%s): a pool's instance types must share one GPU product", it, orCPU(got), first, orCPU(product))
		}
	}
	for _, i := range duplicates(pool.InstanceTypes) {
		c.errorf(p("pools", name, "instanceTypes", strconv.Itoa(i)), "instance type %q is listed twice", pool.InstanceTypes[i])
	}
}

func orCPU(product string) string {
	if product == "" {
		return "no GPU"
	}
	return product
}
