package queueing

import (
	"fmt"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

const IDKueueGang check.ID = "KueueGang"

// KueueGang follows each queued workload Kueue admits whole (a Job's
// PodSet, a StatefulSet's pod group) into every flavor it may be admitted
// to: Kueue merges the flavor's nodeLabels, the pool's label among them,
// into the pods' nodeSelector (pkg/podset Merge), so kube-scheduler then
// filters them inside that pool alone, spreads and anti-affinity
// included. A gang or a StatefulSet needs all its pods there; a Job that
// runs in waves, one. The rest stay Pending while the workload holds the
// quota. Where the class does not land on the flavor's pool at all,
// KueueFlavor and KueueOrder say so.
func KueueGang(a *check.Admission) []check.Finding {
	var out []check.Finding
	for i := range a.Classes {
		qc := &a.Classes[i]
		c := qc.Class
		// A Deployment's replicas are KueueDeployment's; an ML kind's
		// roles KueueRoles', each pinned to its own pod set's flavor.
		if c.Kind == keys.KindDeployment || len(c.PodSets) > 0 {
			continue
		}
		var whole []string
		for _, p := range qc.Pinned {
			if !p.Short(c) {
				whole = append(whole, p.Flavor)
			}
		}
		for _, p := range qc.Pinned {
			if !p.Short(c) || !a.Report.Fits(c.Name, p.Flavor) {
				continue
			}
			out = append(out, check.Finding{Severity: check.Error, Check: IDKueueGang, Tenant: a.Queue.Tenant, Class: c.Name, Pool: p.Flavor,
				Message: fmt.Sprintf("tenant %s: Kueue admits class %s's %s to flavor %s as one workload; then kube-scheduler places %d of its %d pods%s; %s: %s",
					a.Queue.Tenant, c.Name, workloadOf(c, p.Admitted), p.Flavor, p.Placed, p.Admitted, because(p.Reasons), rest(c), runsIn(whole))})
		}
	}
	return out
}

// workloadOf names what Kueue admits as one workload, in a finding.
func workloadOf(c *sched.Class, pods int32) string {
	switch {
	case c.Kind == keys.KindStatefulSet:
		return fmt.Sprintf("StatefulSet of %d replicas (one pod group)", pods)
	case c.Gang:
		return fmt.Sprintf("gang of %d pods", pods)
	}
	return fmt.Sprintf("Job of %d parallel pods", pods)
}

func rest(c *sched.Class) string {
	if c.Kind == keys.KindJob && !c.Gang {
		return "none of them runs, while the workload holds the quota"
	}
	return "the rest stay Pending, holding the quota"
}

// runsIn names the flavors where the workload runs as it must.
func runsIn(flavors []string) string {
	if len(flavors) == 0 {
		return "no flavor it may be admitted to runs it"
	}
	return "it runs in flavor(s) " + strings.Join(flavors, ", ")
}

// because is kube-scheduler's reasons for the pod after the last placed.
func because(reasons []string) string {
	if len(reasons) == 0 {
		return ""
	}
	return ": " + strings.Join(reasons, ", ")
}
