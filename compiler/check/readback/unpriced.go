package readback

import (
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/nodes"
)

// unpriced splits a Karpenter group's types, or is nil when none is
// unpriced (or the group is not Karpenter's: no PriceRegion).
func unpriced(ng nodes.Group) *sched.Unpriced {
	u := &sched.Unpriced{Region: ng.PriceRegion}
	for _, it := range ng.Launched() {
		if aws.Unpriced(ng.PriceRegion, it) {
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
