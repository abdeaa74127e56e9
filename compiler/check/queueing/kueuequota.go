package queueing

import "github.com/gpufleet/gpufleet/compiler/check"

const IDKueueQuota check.ID = "KueueQuota"

// KueueQuota requires Kueue's flavor assigner to admit one whole workload
// of each queued class: its guaranteed quota plus what the cohort tree
// lends, within borrowingLimit.
func KueueQuota(a *check.Admission) []check.Finding {
	var out []check.Finding
	for i := range a.Classes {
		if qc := &a.Classes[i]; !qc.Assignment.Admitted() && shortOfQuota(qc) {
			out = append(out, notAdmitted(a, qc, IDKueueQuota))
		}
	}
	return out
}
