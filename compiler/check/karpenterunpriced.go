package check

import (
	"fmt"
	"strings"
)

// Karpenter makes an offering without a price unavailable
// (offering/base_resolver.go), and its static prices
// (pricing/zz_generated.pricing_aws.go, which catalog.Unpriced reads) lack
// types sold only as capacity blocks, such as p5e.48xlarge. So it never
// launches them, on-demand or spot, and the checker credits the pool's
// other types only; a spec's prices do not count, Karpenter never sees
// them. Judged only where the catalog has the region's prices.
const (
	reasonKarpenterUnpricedAll = "pool %s's NodePool lists only instance types Karpenter has no price for in %s (%s): an offering without a price is not available, so no instance type has the required offering and Karpenter never launches a node for the pool; list a type sold on-demand or spot there"
	reasonKarpenterUnpriced    = "pool %s's NodePool lists instance types Karpenter has no price for in %s (%s): an offering without a price is not available, so Karpenter never launches them; the checker credits only %s"
)

// KarpenterUnpriced reports the Karpenter pools whose listed types
// Karpenter never launches: an error when none is left, else a warning.
func KarpenterUnpriced(cl *Cluster) []Finding {
	var out []Finding
	for _, p := range cl.Pools {
		if len(p.Unpriced) == 0 {
			continue
		}
		unpriced := strings.Join(p.Unpriced, ", ")
		if len(p.Nodes) == 0 {
			out = append(out, Finding{Severity: Error, Check: IDKarpenterUnpriced, Pool: p.Name,
				Message: fmt.Sprintf(reasonKarpenterUnpricedAll, p.Name, p.PriceRegion, unpriced)})
			continue
		}
		var credited []string
		for _, n := range p.Nodes {
			if len(credited) == 0 || credited[len(credited)-1] != n.InstanceType {
				credited = append(credited, n.InstanceType)
			}
		}
		out = append(out, Finding{Severity: Warning, Check: IDKarpenterUnpriced, Pool: p.Name,
			Message: fmt.Sprintf(reasonKarpenterUnpriced, p.Name, p.PriceRegion, unpriced, strings.Join(credited, ", "))})
	}
	return out
}
