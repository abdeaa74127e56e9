package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/nodes"
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
	// ErrReasonNoOffering is Karpenter's word for a pending pod when its
	// NodePool has no available offering: the pool of such a NodePool
	// refuses every class with it.
	ErrReasonNoOffering = "no instance type has the required offering"
)

// Unpriced are the types a Karpenter pool lists that Karpenter has no
// price for in Region (Types), and those it launches (Priced).
type Unpriced struct {
	Region        string
	Types, Priced []string
}

// unpriced splits a Karpenter group's types, or is nil when none is
// unpriced (or the group is not Karpenter's: no PriceRegion).
func unpriced(ng nodes.Group) *Unpriced {
	u := &Unpriced{Region: ng.PriceRegion}
	for _, it := range ng.Launched() {
		if catalog.Unpriced(ng.PriceRegion, it) {
			u.Types = append(u.Types, it)
		} else {
			u.Priced = append(u.Priced, it)
		}
	}
	if len(u.Types) == 0 {
		return nil
	}
	return u
}

func (u *Unpriced) has(it string) bool { return u != nil && slices.Contains(u.Types, it) }

// KarpenterUnpriced reports the Karpenter pools with types Karpenter never
// launches: an error when no type is left, else a warning.
func KarpenterUnpriced(cl *Cluster, _ []Row, _ Intent) []Finding {
	var out []Finding
	for _, p := range cl.Pools {
		u := p.Unpriced
		if u == nil {
			continue
		}
		f := Finding{Severity: Warning, Check: IDKarpenterUnpriced, Pool: p.Name,
			Message: fmt.Sprintf(reasonKarpenterUnpriced, p.Name, u.Region, strings.Join(u.Types, ", "), strings.Join(u.Priced, ", "))}
		if len(u.Priced) == 0 {
			f.Severity, f.Message = Error, fmt.Sprintf(reasonKarpenterUnpricedAll, p.Name, u.Region, strings.Join(u.Types, ", "))
		}
		out = append(out, f)
	}
	return out
}
