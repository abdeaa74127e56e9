package queueing

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

const IDKueueDeployment check.ID = "KueueDeployment"

// KueueDeployment follows a queued Deployment's replicas. Kueue's pod
// integration admits each pod as its own workload, to the first flavor
// whose quota has room (flavorFungibility whenCanBorrow MayStopSearch),
// so the replicas pile into one flavor's pool until its quota is full,
// whatever their spreads and anti-affinity ask. kube-scheduler then
// filters them inside that pool: a replica it cannot place stays Pending
// while admitted.
func KueueDeployment(a *check.Admission) []check.Finding {
	var out []check.Finding
	for i := range a.Classes {
		qc := &a.Classes[i]
		c := qc.Class
		if c.Kind != keys.KindDeployment {
			continue
		}
		for _, p := range qc.Pinned {
			if !p.Short(c) || !a.Report.Fits(c.Name, p.Flavor) {
				continue
			}
			out = append(out, check.Finding{Severity: check.Error, Check: IDKueueDeployment, Tenant: a.Queue.Tenant, Class: c.Name, Pool: p.Flavor,
				Message: fmt.Sprintf("tenant %s: Kueue admits class %s's pods one by one, each to the first flavor with quota: %d of its %d replicas to flavor %s; then kube-scheduler places %d of them%s; the rest stay Pending while admitted",
					a.Queue.Tenant, c.Name, p.Admitted, c.Pods, p.Flavor, p.Placed, because(p.Reasons))})
		}
	}
	return out
}
