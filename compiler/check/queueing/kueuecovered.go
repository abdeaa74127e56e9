package queueing

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDKueueCovered check.ID = "KueueCovered"

// KueueCovered requires every resource a queued class requests to be
// covered by its ClusterQueue, which Kueue otherwise never admits.
func KueueCovered(a *check.Admission) []check.Finding {
	covered := map[corev1.ResourceName]bool{}
	for _, rg := range a.CQ.Spec.ResourceGroups {
		for _, res := range rg.CoveredResources {
			covered[res] = true
		}
	}
	var out []check.Finding
	for _, qc := range a.Classes {
		for _, res := range sched.ResourceOrder(qc.Request) {
			if v := qc.Request[res]; !v.IsZero() && !covered[res] {
				out = append(out, check.Finding{Severity: check.Error, Check: IDKueueCovered, Tenant: a.Queue.Tenant, Class: qc.Class.Name,
					Message: fmt.Sprintf("tenant %s, class %s: resource %s unavailable in ClusterQueue %s", a.Queue.Tenant, qc.Class.Name, res, a.CQ.Name)})
			}
		}
	}
	return out
}
