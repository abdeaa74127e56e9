package derive

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// split divides a tenant's total quota over its flavors. Kueue admits a
// workload only if it fits one flavor's quota (plus borrowing), so each
// flavor first gets the largest whole workload landing there, if the total
// allows; the rest goes in proportion to each pool's size at max, in whole
// units, and what is left below a unit to one flavor. With no quota, each
// flavor gets its pool's whole capacity.
func split(q *Queue, total *spec.Quota, d *Fleet, need map[string]corev1.ResourceList) {
	want := QuotaList(total)
	for _, f := range q.Flavors {
		q.Nominal[f] = corev1.ResourceList{}
	}
	for _, r := range q.Covered {
		unit := unitOf(r)
		caps, reserve := map[string]int64{}, map[string]int64{}
		var sum, reserved int64
		for _, f := range q.Flavors {
			caps[f] = d.Pool(f).Units(r, unit)
			sum += caps[f]
			n := need[f][r]
			reserve[f] = min(ceilUnits(n, unit), caps[f])
			reserved += reserve[f]
		}
		units := sum
		if tq, limited := want[quotaName(r)]; limited && !catalog.IsMIGResource(r) {
			units = tq.MilliValue() / unit.MilliValue()
		}
		if reserved > units {
			reserve, reserved = map[string]int64{}, 0 // cannot hold them all: the check says which
		}
		given := make(map[string]int64, len(q.Flavors))
		rest := units - reserved
		var handed int64
		for _, f := range q.Flavors {
			given[f] = reserve[f]
			if sum > 0 {
				given[f] += rest * caps[f] / sum
			}
			handed += given[f]
		}
		// Hand out what rounding kept back, one unit each, in flavor order.
		for i := 0; handed < units && sum > 0; i = (i + 1) % len(q.Flavors) {
			if f := q.Flavors[i]; caps[f] > 0 {
				given[f]++
				handed++
			}
		}
		for _, f := range q.Flavors {
			q.Nominal[f][r] = units2q(given[f], unit)
		}
		// What is left below a whole unit (the 500m of 1500m) goes to the
		// first flavor with room, so the flavors sum to the quota exactly:
		// Kueue admits against these, the checker against the quota.
		if tq, limited := want[quotaName(r)]; limited && !catalog.IsMIGResource(r) && len(q.Flavors) > 0 {
			frac := tq.DeepCopy()
			frac.Sub(units2q(units, unit))
			if frac.Sign() > 0 {
				f := q.Flavors[0]
				for _, g := range q.Flavors {
					if caps[g] > 0 {
						f = g
						break
					}
				}
				n := q.Nominal[f][r]
				n.Add(frac)
				q.Nominal[f][r] = n
			}
		}
	}
}

// ceilUnits is q in whole units, rounded up.
func ceilUnits(q resource.Quantity, unit resource.Quantity) int64 {
	u := unit.MilliValue()
	return (q.MilliValue() + u - 1) / u
}

func units2q(n int64, unit resource.Quantity) resource.Quantity {
	return *resource.NewQuantity(n*unit.Value(), unit.Format)
}
