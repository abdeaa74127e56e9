package derive

import (
	"k8s.io/apimachinery/pkg/api/resource"
)

// capReserved holds each reservation-only flavor's share to what its
// reservations hold (caps: launchable), so a reserved flavor's quota is
// never more than its reserved GPUs and Kueue's flavor assigner moves on
// to the next flavor, or leaves the workload waiting, once the block is
// full. What a tenant's quota gave it beyond them goes to the tenant's
// other flavors in proportion to their size (apportion); with none, it
// is no flavor's. Fallback pools' flavors hold their on-demand nodes too
// and keep their share.
func capReserved(flavors []string, caps []int64, shares []resource.Quantity, unit resource.Quantity, l *landing) []resource.Quantity {
	var over resource.Quantity
	open := make([]int64, len(flavors))
	var anyOpen bool
	for i, f := range flavors {
		p := l.d.Pool(f).Spec
		if !p.IsReserved() || p.FallsBack() || p.MIG != "" {
			open[i], anyOpen = caps[i], anyOpen || caps[i] > 0
			continue
		}
		if limit := units2q(caps[i], unit); shares[i].Cmp(limit) > 0 {
			over.Add(shares[i])
			over.Sub(limit)
			shares[i] = limit
		}
	}
	if over.Sign() == 0 || !anyOpen {
		return shares
	}
	for i, v := range apportion(open, make([]int64, len(flavors)), over, unit) {
		shares[i].Add(v)
	}
	return shares
}
