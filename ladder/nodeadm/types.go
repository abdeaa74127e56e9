// Package amidiff gives nodeadm's own code the catalog's figures for every
// built-in instance type: the test that judges them (testdata/
// kubelet_test.go) runs inside nodeadm's internal/kubelet package, whose
// path cannot import gpufleet's packages' internals; this package can.
package amidiff

import (
	"cmp"
	"slices"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
)

// Type is one built-in instance type as the catalog reserves on it.
type Type struct {
	Name string
	VCPU int64
	// MaxPods is the catalog's pod limit; ReservedCPUMilli and
	// ReservedMemoryMi the kube-reserved it takes off allocatable, and
	// EvictionMemoryMi the kubelet's hard eviction threshold.
	MaxPods, ReservedCPUMilli, ReservedMemoryMi, EvictionMemoryMi int64
}

// Types lists the built-in catalog, by name.
func Types() []Type {
	cat := aws.Catalog(nil)
	var out []Type
	for _, in := range cat {
		out = append(out, Type{
			Name: in.Name, VCPU: in.VCPU, MaxPods: in.MaxPods,
			ReservedCPUMilli: in.Reserved.CPUMilli,
			ReservedMemoryMi: in.Reserved.MemoryMi,
			EvictionMemoryMi: catalog.EvictionMemoryMi,
		})
	}
	slices.SortFunc(out, func(a, b Type) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
