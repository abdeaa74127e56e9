package validate

import (
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// cluster checks the cluster's own quantities; its cloud identifiers are
// the cloud's to check (cloud.Cloud's Validate).
func (c *checker) cluster() {
	cl := c.f.Cluster
	for _, name := range spec.Keys(cl.DaemonSets) {
		c.quantity(cl.DaemonSets[name].CPU, "cluster", "daemonSets", name, "cpu")
		c.quantity(cl.DaemonSets[name].Memory, "cluster", "daemonSets", name, "memory")
	}
	c.unownedNamespaces()
	c.controllers()
}
