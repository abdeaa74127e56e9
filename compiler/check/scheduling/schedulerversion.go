package scheduling

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDSchedulerVersion check.ID = "SchedulerVersion"

// SchedulerMinor is the kube-scheduler whose Filter plugins the checker
// restates, and which make test-kube-scheduler (in-process, k8s.io/kubernetes
// v1.36.5) and make e2e (the real binaries, v1.36.5) hold it to.
const SchedulerMinor = "1.36"

// A cluster of another minor runs another kube-scheduler: the filters the
// checker models change rarely, but nothing here has tested that version.
const reasonSchedulerVersion = "cluster.version %s: the checker's verdicts are kube-scheduler v%s's, which make test-kube-scheduler and make e2e run; this cluster runs v%s's, which nothing here tests"

// SchedulerVersion warns when the cluster's minor is not the checker's.
func SchedulerVersion(_ *sched.Cluster, _ []sched.Row, in check.Intent) []check.Finding {
	if in.Version == "" || in.Version == SchedulerMinor {
		return nil
	}
	return []check.Finding{{Severity: check.Warning, Check: IDSchedulerVersion,
		Message: fmt.Sprintf(reasonSchedulerVersion, in.Version, SchedulerMinor, in.Version)}}
}
