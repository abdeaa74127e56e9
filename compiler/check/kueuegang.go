package check

import (
	"fmt"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDKueueGang ID = "KueueGang"

// KueueGang requires every flavor Kueue may admit a queued gang to to be a
// pool that holds the whole gang: Kueue adds the flavor's pool label to
// every pod, so the gang cannot spill onto another pool.
func KueueGang(a *Admission) []Finding {
	var out []Finding
	for i := range a.Classes {
		qc := &a.Classes[i]
		c, pods := qc.Class, qc.Pods
		if !c.Gang {
			continue
		}
		for _, f := range qc.Candidates {
			// Where the class does not land at all, KueueFlavor says so;
			// where its pools together do not hold the gang, Gang does.
			cell := a.Report.Cell(c.Name, f)
			if cell != nil && cell.Fits && cell.Capacity < int64(pods) && landsWhole(a.Report, c, pods) {
				out = append(out, Finding{Severity: Error, Check: IDKueueGang, Tenant: a.Queue.Tenant, Class: c.Name, Pool: f,
					Message: fmt.Sprintf("tenant %s: Kueue can admit class %s's gang of %d pods to flavor %s, whose pool holds %d of them at max size; the rest would stay Pending, holding the quota%s", a.Queue.Tenant, c.Name, pods, f, cell.Capacity, wholeGang(a.Report, c, pods))})
			}
		}
	}
	return out
}

// landsWhole reports whether the pools the class lands on hold its gang
// together.
func landsWhole(r *Report, c *sched.Class, pods int32) bool {
	var total int64
	for _, cell := range r.fitting(c) {
		total += cell.Capacity
	}
	return total >= int64(pods)
}

// wholeGang names the pools that could hold the whole gang.
func wholeGang(r *Report, c *sched.Class, pods int32) string {
	var at []string
	for _, cell := range r.fitting(c) {
		if cell.Capacity >= int64(pods) {
			at = append(at, cell.Pool)
		}
	}
	if len(at) == 0 {
		return ": no pool holds it whole"
	}
	return ": pools that hold it whole: " + strings.Join(at, ", ")
}
