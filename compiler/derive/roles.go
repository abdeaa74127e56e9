package derive

import (
	"maps"

	"github.com/gpufleet/gpufleet/compiler/cloud"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// withPrimaryRoles is the fleet with each ML kind's class taking its
// primary role's gpu and resources as its own (spec.Class.WithPrimaryRole),
// which every stage that takes one pod shape per class reads: the pools
// it lands on, its tenants' per-pod bounds, its row in the checker. The
// caller's fleet is left as it was.
func withPrimaryRoles(f *spec.Fleet) *spec.Fleet {
	var roled bool
	for _, c := range f.Classes {
		roled = roled || c.HasRoles()
	}
	if !roled {
		return f
	}
	out := *f
	out.Classes = maps.Clone(f.Classes)
	for name, c := range out.Classes {
		if c.HasRoles() {
			out.Classes[name] = c.WithPrimaryRole()
		}
	}
	return &out
}

// roles are the pod templates of an ML kind's roles: each is the class's
// policy for the role's own gpu and resources, so a CPU-only role (a Ray
// head, an LWS leader) gets no GPU toleration or GPU node affinity.
func roles(name string, c spec.Class, dedicated []string, cl cloud.Cloud) []Role {
	var out []Role
	for _, r := range c.Roles {
		rc := c
		rc.GPU, rc.Resources = r.GPU, r.Resources
		out = append(out, Role{Spec: r, Template: podTemplate(name, r.Name, rc, dedicated, cl)})
	}
	return out
}
