package derive

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// split divides a tenant's total quota over its flavors. Kueue admits a
// workload only if it fits one flavor's quota (plus borrowing), so each
// flavor first gets the largest whole workload landing there, in flavor
// order while the total allows; the rest goes in proportion to each pool's size at max, in whole
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
		var sum int64
		for _, f := range q.Flavors {
			caps[f] = d.Pool(f).Units(r, unit)
			sum += caps[f]
			reserve[f] = min(ceilUnits(need[f][r], unit), caps[f])
		}
		tq, limited := want[quotaName(r)]
		if !limited || catalog.IsMIGResource(r) {
			tq = units2q(sum, unit)
		}
		for f, v := range apportion(q.Flavors, caps, reserve, tq, unit) {
			q.Nominal[f][r] = v
		}
	}
}

// splitBorrow divides what a tenant may borrow over its flavors the way
// split divides its quota, so that Kueue, like the namespaces'
// ResourceQuota, never lets it hold more than quota plus borrow in all.
// A flavor first gets what its largest whole workload needs beyond its
// nominal quota, then the rest in proportion to its pool's size. A
// resource the tenant does not list borrows nothing.
func splitBorrow(q *Queue, total *spec.Quota, d *Fleet, need map[string]corev1.ResourceList) {
	want := QuotaList(total)
	q.Borrow = map[string]corev1.ResourceList{}
	for _, f := range q.Flavors {
		q.Borrow[f] = corev1.ResourceList{}
	}
	for _, r := range CoveredResources {
		tq, listed := want[quotaName(r)]
		if !listed {
			for _, f := range q.Flavors {
				q.Borrow[f][r] = *resource.NewQuantity(0, resource.DecimalSI)
			}
			continue
		}
		unit := unitOf(r)
		caps, reserve := map[string]int64{}, map[string]int64{}
		for _, f := range q.Flavors {
			caps[f] = d.Pool(f).Units(r, unit)
			short := need[f][r].DeepCopy()
			short.Sub(q.Nominal[f][r])
			if short.Sign() > 0 {
				reserve[f] = min(ceilUnits(short, unit), caps[f])
			}
		}
		for f, v := range apportion(q.Flavors, caps, reserve, tq, unit) {
			q.Borrow[f][r] = v
		}
	}
}

// apportion hands total out over flavors: first each flavor's reserve, in
// flavor order while the total allows; then the rest in whole units in proportion to
// caps, what rounding kept back one unit each in flavor order, and what is
// left below a unit (the 500m of 1500m) to the first flavor with room, so
// that the shares sum to the total whenever caps can hold it.
func apportion(flavors []string, caps, reserve map[string]int64, total, unit resource.Quantity) map[string]resource.Quantity {
	units := total.MilliValue() / unit.MilliValue()
	given := make(map[string]int64, len(flavors))
	var sum, reserved int64
	for _, f := range flavors {
		sum += caps[f]
		// In flavor order, while the total allows: a flavor whose
		// workload does not fit gets none (the checks say so).
		if reserved+reserve[f] <= units {
			given[f] = reserve[f]
			reserved += reserve[f]
		}
	}
	rest := units - reserved
	var handed int64
	for _, f := range flavors {
		if sum > 0 {
			given[f] += rest * caps[f] / sum
		}
		handed += given[f]
	}
	for i := 0; handed < units && sum > 0; i = (i + 1) % len(flavors) {
		if f := flavors[i]; caps[f] > 0 {
			given[f]++
			handed++
		}
	}
	out := make(map[string]resource.Quantity, len(flavors))
	for _, f := range flavors {
		out[f] = units2q(given[f], unit)
	}
	frac := total.DeepCopy()
	frac.Sub(units2q(units, unit))
	if frac.Sign() > 0 && len(flavors) > 0 {
		f := flavors[0]
		for _, g := range flavors {
			if caps[g] > 0 {
				f = g
				break
			}
		}
		v := out[f]
		v.Add(frac)
		out[f] = v
	}
	return out
}

// ceilUnits is q in whole units, rounded up.
func ceilUnits(q resource.Quantity, unit resource.Quantity) int64 {
	u := unit.MilliValue()
	return (q.MilliValue() + u - 1) / u
}

func units2q(n int64, unit resource.Quantity) resource.Quantity {
	return *resource.NewQuantity(n*unit.Value(), unit.Format)
}
