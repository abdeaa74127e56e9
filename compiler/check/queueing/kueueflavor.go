package queueing

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
)

const IDKueueFlavor check.ID = "KueueFlavor"

// KueueFlavor requires Kueue to admit each queued class to some flavor of
// its ClusterQueue (else Kueue's reason, unless it is quota: KueueQuota),
// and every flavor it may admit the class to, the first that fits and any
// later one once that one's quota is in use, to be a pool where the class
// lands.
func KueueFlavor(a *check.Admission) []check.Finding {
	var out []check.Finding
	for i := range a.Classes {
		qc := &a.Classes[i]
		if !qc.Assignment.Admitted() {
			if !shortOfQuota(qc) {
				out = append(out, notAdmitted(a, qc, IDKueueFlavor))
			}
			continue
		}
		for _, f := range qc.Candidates {
			if cell := a.Report.Cell(qc.Class.Name, f); cell == nil || !cell.Fits {
				out = append(out, check.Finding{Severity: check.Error, Check: IDKueueFlavor, Tenant: a.Queue.Tenant, Class: qc.Class.Name, Pool: f,
					Message: fmt.Sprintf("tenant %s: Kueue can admit class %s to flavor %s, but it cannot land on pool %s: its pods would stay Pending", a.Queue.Tenant, qc.Class.Name, f, f)})
			}
		}
	}
	return out
}
