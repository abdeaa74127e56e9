package check

const IDKueueQuota ID = "KueueQuota"

// KueueQuota requires Kueue's flavor assigner to admit one whole workload
// of each queued class: its guaranteed quota plus what the cohort tree
// lends, within borrowingLimit.
func KueueQuota(a *Admission) []Finding {
	var out []Finding
	for i := range a.Classes {
		if qc := &a.Classes[i]; !qc.Assignment.Admitted() && shortOfQuota(qc) {
			out = append(out, notAdmitted(a, qc, IDKueueQuota))
		}
	}
	return out
}
