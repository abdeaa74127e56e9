package derive

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// split divides a tenant's total quota over its flavors. Kueue admits a
// workload only if it fits one flavor's quota (plus borrowing), so each
// flavor first gets the largest whole workload landing there, in flavor
// order while the total allows; the rest goes in proportion to each pool's size at max, in whole
// units, and what is left below a unit to one flavor. With no quota, each
// flavor gets its pool's whole capacity. A MIG pool's GPUs take their
// share of the GPU quota as whole GPUs do, and the flavor gets that share
// of each of its slices (migShare), so tenants whose GPU quotas sum to the
// pool's GPUs hold its slices between them, not each all of them.
func split(q *Queue, total *spec.Quota, l *landing, need map[string]corev1.ResourceList) {
	want := QuotaList(total)
	for _, f := range q.Flavors {
		q.Nominal[f] = make(corev1.ResourceList, len(q.Covered))
	}
	caps, reserve := make([]int64, len(q.Flavors)), make([]int64, len(q.Flavors))
	for _, r := range q.Covered {
		if catalog.IsMIGResource(r) {
			continue // with nvidia.com/gpu
		}
		if !slices.Contains(CoveredResources, r) {
			// EFA interfaces, which the spec has no quota for, follow
			// the GPUs (CoveredResources come first in Covered).
			for _, f := range q.Flavors {
				q.Nominal[f][r] = *resource.NewQuantity(l.followGPUs(f, r, q.Nominal[f], want), resource.DecimalSI)
			}
			continue
		}
		unit := unitOf(r)
		var sum int64
		for i, f := range q.Flavors {
			caps[i] = l.unitsOf(f, r)
			reserve[i] = min(ceilUnits(need[f][r], unit), caps[i])
			if r == keys.ResourceGPU && l.migGPUs(f) > 0 {
				caps[i] = l.migGPUs(f)
				reserve[i] = min(l.migGPUsFor(f, q.Covered, need[f]), caps[i])
			}
			sum += caps[i]
		}
		tq, limited := want[quotaName(r)]
		if !limited {
			tq = units2q(sum, unit)
		}
		shares := capReserved(q.Flavors, caps, apportion(caps, reserve, tq, unit), unit, l)
		for i, v := range shares {
			if r == keys.ResourceGPU {
				migShare(q.Nominal[q.Flavors[i]], &v, q.Flavors[i], q.Covered, l)
			}
			q.Nominal[q.Flavors[i]][r] = v
		}
	}
}

// migShare turns the GPUs a MIG flavor was given into slices: gpus' share
// of each MIG resource the tenant covers, and no whole GPU, which the
// flavor's nodes do not advertise. Every other flavor gets no slices.
func migShare(rl corev1.ResourceList, gpus *resource.Quantity, f string, covered []corev1.ResourceName, l *landing) {
	g := gpus.Value()
	if l.migGPUs(f) == 0 {
		g = 0
	} else {
		*gpus = *resource.NewQuantity(0, resource.DecimalSI)
	}
	for _, r := range covered {
		if catalog.IsMIGResource(r) {
			rl[r] = *resource.NewQuantity(l.migSlices(f, r, g), resource.DecimalSI)
		}
	}
}

// splitBorrow divides what a tenant may borrow over its flavors the way
// split divides its quota, so that Kueue, like the namespaces'
// ResourceQuota, never lets it hold more than quota plus borrow in all.
// A flavor first gets what its largest whole workload needs beyond its
// nominal quota, then the rest in proportion to its pool's size. A
// resource the tenant does not list borrows nothing. MIG slices borrow as
// their GPUs do: a MIG flavor's share of the GPU borrow, in slices.
func splitBorrow(q *Queue, total *spec.Quota, l *landing, need map[string]corev1.ResourceList) {
	want := QuotaList(total)
	q.Borrow = make(map[string]corev1.ResourceList, len(q.Flavors))
	for _, f := range q.Flavors {
		q.Borrow[f] = make(corev1.ResourceList, len(q.Covered))
	}
	caps, reserve := make([]int64, len(q.Flavors)), make([]int64, len(q.Flavors))
	for _, r := range CoveredResources {
		tq, listed := want[quotaName(r)]
		if !listed {
			for _, f := range q.Flavors {
				q.Borrow[f][r] = *resource.NewQuantity(0, resource.DecimalSI)
				if r == keys.ResourceGPU {
					migShare(q.Borrow[f], new(resource.Quantity), f, q.Covered, l)
				}
			}
			continue
		}
		unit := unitOf(r)
		for i, f := range q.Flavors {
			caps[i], reserve[i] = l.unitsOf(f, r), 0
			if r == keys.ResourceGPU && l.migGPUs(f) > 0 {
				short := corev1.ResourceList{}
				for _, m := range q.Covered {
					if catalog.IsMIGResource(m) {
						s := need[f][m].DeepCopy()
						s.Sub(q.Nominal[f][m])
						short[m] = s
					}
				}
				caps[i], reserve[i] = l.migGPUs(f), min(l.migGPUsFor(f, q.Covered, short), l.migGPUs(f))
				continue
			}
			short := need[f][r].DeepCopy()
			short.Sub(q.Nominal[f][r])
			if short.Sign() > 0 {
				reserve[i] = min(ceilUnits(short, unit), caps[i])
			}
		}
		for i, v := range apportion(caps, reserve, tq, unit) {
			if r == keys.ResourceGPU {
				migShare(q.Borrow[q.Flavors[i]], &v, q.Flavors[i], q.Covered, l)
			}
			q.Borrow[q.Flavors[i]][r] = v
		}
	}
}

// apportion hands total out over flavors, given each one's caps and
// reserve in flavor order: first each flavor's reserve, in flavor order
// while the total allows; then the rest in whole units in proportion to
// caps, what rounding kept back one unit each in flavor order, and what is
// left below a unit (the 500m of 1500m) to the first flavor with room, so
// that the shares sum to the total whenever caps can hold it. The shares
// are in flavor order.
func apportion(caps, reserve []int64, total, unit resource.Quantity) []resource.Quantity {
	units := total.MilliValue() / unit.MilliValue()
	given := make([]int64, len(caps))
	var sum, reserved int64
	for i := range caps {
		sum += caps[i]
		// In flavor order, while the total allows: a flavor whose
		// workload does not fit gets none (the checks say so).
		if reserved+reserve[i] <= units {
			given[i] = reserve[i]
			reserved += reserve[i]
		}
	}
	rest := units - reserved
	var handed int64
	for i := range caps {
		if sum > 0 {
			given[i] += rest * caps[i] / sum
		}
		handed += given[i]
	}
	for i := 0; handed < units && sum > 0; i = (i + 1) % len(caps) {
		if caps[i] > 0 {
			given[i]++
			handed++
		}
	}
	out := make([]resource.Quantity, len(caps))
	for i := range caps {
		out[i] = units2q(given[i], unit)
	}
	frac := total.DeepCopy()
	frac.Sub(units2q(units, unit))
	if frac.Sign() > 0 && len(caps) > 0 {
		f := 0
		for i := range caps {
			if caps[i] > 0 {
				f = i
				break
			}
		}
		out[f].Add(frac)
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

// migGPUs is the GPUs of a MIG pool at max size, on its instance type with
// the most (0 for a pool without MIG): the quota a tenant gives its flavor
// is counted in them, as whole GPUs are.
func (l *landing) migGPUs(pool string) int64 {
	p := l.d.Pool(pool)
	if p.Spec.MIG == "" {
		return 0
	}
	var best int64
	for _, in := range p.Instances {
		if in.GPU != nil {
			best = max(best, in.GPU.Count)
		}
	}
	return best * int64(p.Spec.Size.Max)
}

// migSlices is the slices of r that gpus of a MIG pool's GPUs hold: the
// pool's slices in proportion, rounded down, so that shares of GPUs that
// sum to the pool's never hold more than its slices.
func (l *landing) migSlices(pool string, r corev1.ResourceName, gpus int64) int64 {
	all := l.migGPUs(pool)
	if all == 0 {
		return 0
	}
	return min(gpus, all) * l.unitsOf(pool, r) / all
}

// migGPUsFor is the fewest of a MIG pool's GPUs whose slices (migSlices)
// hold what rl asks of each MIG resource in covered.
func (l *landing) migGPUsFor(pool string, covered []corev1.ResourceName, rl corev1.ResourceList) int64 {
	all := l.migGPUs(pool)
	var g int64
	for _, r := range covered {
		q := rl[r]
		slices := l.unitsOf(pool, r)
		if !catalog.IsMIGResource(r) || q.Sign() <= 0 || slices == 0 {
			continue
		}
		g = max(g, (q.Value()*all+slices-1)/slices)
	}
	return g
}

// followGPUs is a flavor's share of r, a resource that comes with the
// pool's GPUs (EFA interfaces: a p5 has 32 for its 8 GPUs, a p4d 4): as
// much of the pool's r as the flavor's GPU quota is of its GPUs, rounded
// up, or all of it where the tenant's GPU quota is not limited or the pool
// has no GPUs. Counted against the GPU quota instead, a p5 tenant's quota
// of 64 GPUs held the interfaces of 2 nodes, not 8.
func (l *landing) followGPUs(f string, r corev1.ResourceName, nominal corev1.ResourceList, want corev1.ResourceList) int64 {
	all, gpus := l.unitsOf(f, r), l.unitsOf(f, keys.ResourceGPU)
	if _, limited := want[QuotaGPU]; !limited || gpus <= 0 {
		return all
	}
	// Spec bounds keep the product in range: at most 10,000 nodes of 64
	// GPUs and 32 interfaces each, and a quota of that many GPUs.
	g := nominal[keys.ResourceGPU]
	return min(all, (g.Value()*all+gpus-1)/gpus)
}
