package sched

// Holds is how many of the class's pods run at once on the fleet at max
// size by the checker's proofs, at most c.Pods: none where no pool fits
// (Lands), else the least of the fitting pools' capacity (Gang,
// Capacity), what required anti-affinity against its own pods allows
// (InterPodAffinity) and what each hard spread, and all of them together,
// place (PodTopologySpread). It is below c.Pods exactly when the class has
// one of those findings; the kube-scheduler differential holds the count
// to the real scheduling cycle placing the pods one by one.
func Holds(c *Class, w *Row, pools []Pool) int64 {
	var capacity int64
	fits := false
	for _, cell := range w.Evaluated {
		if cell.Fits {
			fits = true
			capacity += cell.Capacity
		}
	}
	if !fits {
		return 0
	}
	n := min(int64(c.Pods), capacity)
	if a := c.Pod.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			if limit, _ := AntiAffinityLimit(c, term, w); limit > 0 {
				n = min(n, limit)
			}
		}
	}
	hard := HardSpreads(c)
	for _, tsc := range hard {
		placed, _ := SpreadPlaced(c, tsc, w, pools)
		n = min(n, placed)
	}
	if len(hard) > 1 {
		n = min(n, JointPlaced(c, hard, w, pools))
	}
	return n
}
