package queueing

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
)

const IDKueueRoles check.ID = "KueueRoles"

// KueueRoles follows an ML kind's workload through Kueue as its
// integration builds it (v0.19.2 pkg/controller/jobs/jobset,
// leaderworkerset, raycluster, rayjob, kubeflow, trainjob; a TrainJob's
// roles are its runtime's replicated jobs): one PodSet per role,
// admitted together or not at all. Kueue's flavor assigner must assign
// every pod set a flavor, each within the quota the earlier pod sets left
// (kueuemodel.AssignPodSets; the message is Kueue's own), and each role
// must land on the pool of the flavor it is assigned: Kueue pins its pods
// there, and a CPU-only Ray head or LWS leader assigned a GPU pool's
// flavor never tolerates its taint. Where a role lands, all its pods must
// then run at once, as the kind's controller creates them together:
// kube-scheduler must place every pod of the pod set pinned to its flavor
// (pinner.pinRoles, judged by the composed rung), else the rest stay
// Pending while the workload holds the quota.
func KueueRoles(a *check.Admission) []check.Finding {
	var out []check.Finding
	for i := range a.Classes {
		qc := &a.Classes[i]
		c := qc.Class
		for k, as := range qc.PodSets {
			ps := c.PodSets[k]
			if !as.Admitted() {
				whose := fmt.Sprintf("whose %d pod sets it admits together", len(c.PodSets))
				if len(c.PodSets) == 1 {
					whose = "whose one pod set " + ps.Name + " it admits whole"
				}
				out = append(out, check.Finding{Severity: check.Error, Check: IDKueueRoles, Tenant: a.Queue.Tenant, Class: c.Name,
					Message: fmt.Sprintf("tenant %s: Kueue cannot admit a %s of class %s, %s: %s",
						a.Queue.Tenant, c.Kind, c.Name, whose, as.Message)})
				break
			}
			if f := as.Flavor(); !a.Report.Fits(ps.Row, f) {
				out = append(out, check.Finding{Severity: check.Error, Check: IDKueueRoles, Tenant: a.Queue.Tenant, Class: c.Name, Pool: f,
					Message: fmt.Sprintf("tenant %s: Kueue assigns pod set %s of class %s (%d pods) flavor %s, whose pool its pods do not land on: they stay Pending while the %s holds the quota",
						a.Queue.Tenant, ps.Name, c.Name, ps.Pods, f, c.Kind)})
			} else if k < len(qc.RolePinned) && qc.RolePinned[k].Placed < int64(ps.Pods) {
				p := qc.RolePinned[k]
				out = append(out, check.Finding{Severity: check.Error, Check: IDKueueRoles, Tenant: a.Queue.Tenant, Class: c.Name, Pool: f,
					Message: fmt.Sprintf("tenant %s: Kueue admits class %s's %s whole, pod set %s to flavor %s; then kube-scheduler places %d of its %d pods%s; the rest stay Pending, holding the quota",
						a.Queue.Tenant, c.Name, c.Kind, ps.Name, f, p.Placed, ps.Pods, because(p.Reasons))})
			}
		}
	}
	return out
}
