// Package catalog is the shape of an instance catalog: the instance types a
// pool may use (GPUs, vCPU, memory, pod limit), what is allocatable to pods
// on each, MIG layouts and prices. A cloud (compiler/cloud) gives the
// built-in types and prices; the spec's instanceTypes add to them.
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
	// MaxPods is the cloud's default pod limit for the type.
	MaxPods int64
	GPU     *GPU
	// EFA is how many Elastic Fabric Adapter interfaces the type takes
	// (one per network card), which the EFA device plugin advertises when
	// the node group enables EFA.
	EFA int64
	// NetworkLayers is how many network layers the cloud's topology
	// labels describe on the type's nodes (0: none).
	NetworkLayers int
	// Reserved is what the cloud's nodes of the type keep from pods (New
	// sets it from the cloud's Table).
	Reserved Reserved
}

// Reserved is what a node keeps from pods, in MiB and millicores.
type Reserved struct {
	// VMMemoryMi is how much less memory the node reports than the type's
	// nominal figure (the hypervisor's share).
	VMMemoryMi int64
	// CPUMilli and MemoryMi are the node image's kube-reserved.
	CPUMilli, MemoryMi int64
}

// GPU is an instance's accelerators.
type GPU struct {
	Count     int64
	Product   string
	MemoryGiB int64
}

// Catalog is a cloud's built-in table with the spec's additions and
// overrides.
type Catalog map[string]Instance

// Table is a cloud's built-in instance types, which New makes a catalog of.
type Table struct {
	Instances []Instance
	// EFA is the interfaces of the EFA-capable types, by name: a spec type
	// of the same name takes them too.
	EFA map[string]int64
	// NetworkLayers are the network layers the cloud's topology labels
	// give the types that get them, by name.
	NetworkLayers map[string]int
	// Reserve is what the cloud's nodes of a type keep from pods, from the
	// type's figures (the spec may override them).
	Reserve func(Instance) Reserved
}

// New merges a fleet's instanceTypes over a cloud's built-in table.
func New(t *Table, extra map[string]spec.InstanceType) Catalog {
	c := make(Catalog, len(t.Instances)+len(extra))
	for _, in := range t.Instances {
		c[in.Name] = in
	}
	for name, x := range extra {
		in := Instance{Name: name, VCPU: x.VCPU, MemoryGiB: x.MemoryGiB, MaxPods: x.MaxPods}
		if x.GPU != nil {
			in.GPU = &GPU{Count: x.GPU.Count, Product: x.GPU.Product, MemoryGiB: x.GPU.MemoryGiB}
		}
		c[name] = in
	}
	for name, n := range t.EFA {
		if in, ok := c[name]; ok {
			in.EFA = n
			c[name] = in
		}
	}
	for name, n := range t.NetworkLayers {
		if in, ok := c[name]; ok {
			in.NetworkLayers = n
			c[name] = in
		}
	}
	for name, x := range extra {
		if x.NetworkLayers != nil {
			in := c[name]
			in.NetworkLayers = *x.NetworkLayers
			c[name] = in
		}
	}
	for name, in := range c {
		in.Reserved = t.Reserve(in)
		c[name] = in
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
