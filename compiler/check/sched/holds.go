package sched

import "slices"

// Holds is how many of the class's pods run at once on the fleet at max
// size by the checker's proofs, at most c.Pods: none where no pool fits
// (Lands), else the least of the fitting pools' capacity (Gang,
// Capacity), what required anti-affinity against its own pods allows
// (InterPodAffinity) and what each hard spread, and all of them together,
// place (PodTopologySpread). It is below c.Need() exactly when the class
// has one of those findings; the kube-scheduler differential holds the
// count to the real scheduling cycle placing the pods one by one.
func Holds(c *Class, w *Row, pools []Pool) int64 {
	n, _ := HoldsWhy(c, w, pools)
	return n
}

// HoldsWhy is Holds, and kube-scheduler's reasons for the pod after the
// last that runs, sorted: the filters whose bound is the least. Where no
// pool fits, the reasons are the pools'.
func HoldsWhy(c *Class, w *Row, pools []Pool) (int64, []string) {
	var capacity int64
	var why []string
	add := func(rs ...string) {
		for _, r := range rs {
			if !slices.Contains(why, r) {
				why = append(why, r)
			}
		}
	}
	fits := false
	for _, cell := range w.Evaluated {
		if cell.Fits {
			fits = true
			capacity += cell.Capacity
		}
	}
	if !fits {
		for _, cell := range w.Evaluated {
			add(cell.Reasons...)
		}
		slices.Sort(why)
		return 0, why
	}
	n := min(int64(c.Pods), capacity)
	if n < int64(c.Pods) {
		for k, cell := range w.Evaluated {
			if cell.Fits {
				add(FullNodeReasons(c.Info, &pools[w.At[k]], cell.Type)...)
			}
		}
	}
	bound := func(limit int64, reason string) {
		switch {
		case limit < n:
			n, why = limit, []string{reason}
		case limit == n && n < int64(c.Pods):
			add(reason)
		}
	}
	if a := c.Pod.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			if limit, _ := AntiAffinityLimit(c, term, w); limit > 0 {
				bound(limit, ErrReasonAntiAffinity)
			}
		}
	}
	hard := HardSpreads(c)
	for _, tsc := range hard {
		placed, _ := SpreadPlaced(c, tsc, w, pools)
		bound(placed, ErrReasonSpread)
	}
	if len(hard) > 1 {
		bound(JointPlaced(c, hard, w, pools), ErrReasonSpread)
	}
	slices.Sort(why)
	return n, why
}
