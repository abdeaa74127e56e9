package provisioning

import (
	"fmt"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDKarpenterUnpriced check.ID = "KarpenterUnpriced"

// Karpenter makes an offering without a price unavailable
// (offering/base_resolver.go), and its static prices
// (pricing/zz_generated.pricing_aws.go, which aws.Unpriced reads) lack
// types sold only as capacity blocks, such as p5e.48xlarge. So it never
// launches them, on-demand or spot, and the checker credits the pool's
// other types only; a spec's prices do not count, Karpenter never sees
// them. Judged only where the catalog has the region's prices.
const (
	reasonKarpenterUnpricedAll = "pool %s's NodePool lists only instance types Karpenter has no price for in %s (%s): an offering without a price is not available, so no instance type has the required offering and Karpenter never launches a node for the pool; list a type sold on-demand or spot there"
	reasonKarpenterUnpriced    = "pool %s's NodePool lists instance types Karpenter has no price for in %s (%s): an offering without a price is not available, so Karpenter never launches them; the checker credits only %s"
)

// KarpenterUnpriced reports the Karpenter pools with types Karpenter never
// launches: an error when no type is left, else a warning.
func KarpenterUnpriced(cl *sched.Cluster, _ []sched.Row, _ check.Intent) []check.Finding {
	var out []check.Finding
	for _, p := range cl.Pools {
		u := p.Unpriced
		if u == nil {
			continue
		}
		f := check.Finding{Severity: check.Warning, Check: IDKarpenterUnpriced, Pool: p.Name,
			Message: fmt.Sprintf(reasonKarpenterUnpriced, p.Name, u.Region, strings.Join(u.Types, ", "), strings.Join(u.Priced, ", "))}
		if len(u.Priced) == 0 {
			f.Severity, f.Message = check.Error, fmt.Sprintf(reasonKarpenterUnpricedAll, p.Name, u.Region, strings.Join(u.Types, ", "))
		}
		out = append(out, f)
	}
	return out
}
