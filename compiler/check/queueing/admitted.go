package queueing

import (
	"fmt"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// notAdmitted is the finding for a class the queue admits no workload of.
// When the class lands on none of the queue's flavors, it says where the
// class does land: Kueue's reasons then speak of quota or labels, while
// the fix is a flavor (a poolQuotas entry) for such a pool.
func notAdmitted(a *check.Admission, qc *check.Queued, id check.ID) check.Finding {
	q, c := a.Queue, qc.Class
	return check.Finding{Severity: check.Error, Check: id, Tenant: q.Tenant, Class: c.Name,
		Message: fmt.Sprintf("tenant %s, class %s: ClusterQueue %s admits no workload of it: %s%s", q.Tenant, c.Name, a.CQ.Name, qc.Assignment.Message, landsNowhereIn(a, c))}
}

func landsNowhereIn(a *check.Admission, c *sched.Class) string {
	for _, rg := range a.CQ.Spec.ResourceGroups {
		for _, f := range rg.Flavors {
			if a.Report.Fits(c.Name, f.Name) {
				return ""
			}
		}
	}
	at := a.Report.LandsOn(c.Name)
	if len(at) == 0 {
		return ""
	}
	return fmt.Sprintf(" (the class lands on none of its flavors; it lands on %s)", strings.Join(at, ", "))
}

// shortOfQuota reports whether Kueue refused the workload for quota, not
// for a flavor's taints or labels.
func shortOfQuota(qc *check.Queued) bool {
	return strings.Contains(qc.Assignment.Message, "insufficient quota")
}
