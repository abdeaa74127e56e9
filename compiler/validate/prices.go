package validate

import (
	"strings"

	"github.com/gpufleet/gpufleet/compiler/internal/suggest"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// prices checks that the spec's prices name a region the cloud's built-in
// table has and instance types the catalog knows.
func (c *checker) prices() {
	pr := c.f.Prices
	if pr == nil {
		return
	}
	if table := c.cloud.Prices(); pr.Region != "" && !table.Has(pr.Region) {
		c.errorf(p("prices", "region"), "region %q has no built-in on-demand prices: the catalog has them for %s", pr.Region, strings.Join(table.Regions(), ", "))
	}
	for _, name := range spec.Keys(pr.InstanceTypes) {
		if _, ok := c.cat[name]; !ok {
			c.errorf(p("prices", "instanceTypes", name), "prices for unknown instance type %q: it is neither built in nor in instanceTypes%s", name, suggest.Hint(name, spec.Keys(c.cat)))
		}
	}
}
