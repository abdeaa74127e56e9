package queueing

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

const IDKueueBorrow check.ID = "KueueBorrow"

// KueueBorrow warns of a tenant that may borrow in a cohort tree where its
// ClusterQueue is alone: there is nothing to borrow.
func KueueBorrow(a *check.Admission) []check.Finding {
	if !a.Model.Alone(a.CQ.Name) || !borrows(a.CQ) {
		return nil
	}
	return []check.Finding{{Severity: check.Warning, Check: IDKueueBorrow, Tenant: a.Queue.Tenant,
		Message: fmt.Sprintf("tenant %s may borrow in cohort %s, but its ClusterQueue is the only one in that cohort tree: there is nothing to borrow", a.Queue.Tenant, a.CQ.Spec.CohortName)}}
}

func borrows(cq *kueue.ClusterQueue) bool {
	for _, rg := range cq.Spec.ResourceGroups {
		for _, f := range rg.Flavors {
			for _, r := range f.Resources {
				if r.BorrowingLimit == nil || !r.BorrowingLimit.IsZero() {
					return true
				}
			}
		}
	}
	return false
}
