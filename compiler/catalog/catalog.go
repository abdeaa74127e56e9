// Package catalog knows the EC2 instance types a pool may use: GPUs, vCPU,
// memory and the EKS pod limit, and what is allocatable to pods.
package catalog

import (
	"sort"

	"github.com/gpufleet/gpufleet/compiler/spec"
)

// Instance describes one instance type.
type Instance struct {
	Name      string
	VCPU      int64
	MemoryGiB float64
	// MaxPods is the EKS default pod limit (the VPC CNI's ENI formula).
	MaxPods int64
	GPU     *GPU
	// EFA is how many Elastic Fabric Adapter interfaces the type takes
	// (one per network card), which the EFA device plugin advertises when
	// the node group enables EFA.
	EFA int64
}

// efaInterfaces are the EFA-capable types' interfaces (EC2's
// MaximumEfaInterfaces, one per network card), as karpenter-provider-aws
// v1.15.1's EC2 and EFA device data give them (make test-karpenter): the
// 8xlarge and larger g4dn, g5, g6 and g6e take EFA too, which this table
// once left out.
var efaInterfaces = map[string]int64{
	"g4dn.8xlarge": 1, "g4dn.12xlarge": 1, "g4dn.16xlarge": 1, "g4dn.metal": 1,
	"g5.8xlarge": 1, "g5.12xlarge": 1, "g5.16xlarge": 1, "g5.24xlarge": 1, "g5.48xlarge": 1,
	"g6.8xlarge": 1, "g6.12xlarge": 1, "g6.16xlarge": 1, "g6.24xlarge": 1, "g6.48xlarge": 1,
	"g6e.8xlarge": 1, "g6e.12xlarge": 1, "g6e.16xlarge": 1, "g6e.24xlarge": 2, "g6e.48xlarge": 4,
	"p4d.24xlarge": 4, "p4de.24xlarge": 4, "p5.48xlarge": 32, "p5e.48xlarge": 32, "p5en.48xlarge": 16,
}

// GPU is an instance's accelerators.
type GPU struct {
	Count     int64
	Product   string
	MemoryGiB int64
}

// Catalog is the built-in table with the spec's additions and overrides.
type Catalog map[string]Instance

// New merges a fleet's instanceTypes over the built-in table.
func New(extra map[string]spec.InstanceType) Catalog {
	c := make(Catalog, len(builtin)+len(extra))
	for _, r := range builtin {
		c[r.Name] = Instance{Name: r.Name, VCPU: r.VCPU, MemoryGiB: r.MemoryGiB, MaxPods: r.MaxPods, GPU: r.GPU}
	}
	for name, t := range extra {
		in := Instance{Name: name, VCPU: t.VCPU, MemoryGiB: t.MemoryGiB, MaxPods: t.MaxPods}
		if t.GPU != nil {
			in.GPU = &GPU{Count: t.GPU.Count, Product: t.GPU.Product, MemoryGiB: t.GPU.MemoryGiB}
		}
		c[name] = in
	}
	for name, n := range efaInterfaces {
		if in, ok := c[name]; ok {
			in.EFA = n
			c[name] = in
		}
	}
	return c
}

// Products lists the GPU products any instance type in the catalog carries.
func (c Catalog) Products() []string {
	seen := map[string]bool{}
	for _, in := range c {
		if in.GPU != nil {
			seen[in.GPU.Product] = true
		}
	}
	return spec.Keys(seen)
}

// Names lists the catalog's instance types, sorted.
func (c Catalog) Names() []string {
	names := make([]string, 0, len(c))
	for n := range c {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
