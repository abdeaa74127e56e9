package e2e

import (
	"slices"
	"sort"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/provisioning"
	"github.com/gpufleet/gpufleet/compiler/check/queueing"
	"github.com/gpufleet/gpufleet/compiler/check/resourcequota"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/check/scheduling"
)

// placementChecks are the checker's findings that say a class's pods
// cannot all run: kube-scheduler must leave some Pending.
var placementChecks = []check.ID{scheduling.IDLands, scheduling.IDGang, scheduling.IDCapacity, scheduling.IDInterPodAffinity, scheduling.IDPodTopologySpread}

// expectation is what the checker's report predicts for one class.
type expectation struct {
	// refused: some pods stay Pending, and a FailedScheduling message
	// carries every one of reasons.
	refused  bool
	reasons  []string
	findings []string
	// allowed are the pools the checker proved the class lands on; no pod
	// may be bound anywhere else.
	allowed map[string]bool
	// quota: the tenant's quota cannot hold the class, so quota admission
	// must refuse one of its pods.
	quota bool
	// gpuOK: a CPU-only class the checker found on a GPU pool.
	gpuOK bool
	// atOnce is how many pods run at once where none is refused: all, but
	// a Job's or a queued class's unit's (runsAtOnce).
	atOnce int
	// noScaleUp is the filter reason cluster-autoscaler (restated) must
	// give a pending pod for adding no node (autoscale.go), or "".
	noScaleUp string
}

// runsAtOnce is how many of the class's pods the report says run at once:
// its unit's (a Job that runs in waves, a queued class pinned to Kueue's
// flavor), else every one.
func runsAtOnce(r *check.Report, c *sched.Class, tenant string) int {
	for _, u := range r.Units {
		if u.Class == c.Name && (u.Tenant == "" || u.Tenant == tenant) {
			return int(min(u.AtOnce, int64(c.Pods)))
		}
	}
	return int(c.Pods)
}

func expect(r *check.Report, class, tenant string, cellReasons func(pool string) []string) expectation {
	e := expectation{allowed: map[string]bool{}}
	reasons := map[string]bool{}
	if w := r.Row(class); w != nil {
		for _, cell := range w.Evaluated {
			if cell.Fits {
				e.allowed[cell.Pool] = true
			}
		}
	}
	for _, f := range r.Findings {
		if f.Class != class {
			continue
		}
		switch {
		case slices.Contains(placementChecks, f.Check):
			e.refused = true
			e.findings = append(e.findings, string(f.Check)+": "+f.Message)
			for _, why := range findingReasons(r, f, cellReasons) {
				reasons[why] = true
			}
		case f.Check == queueing.IDKueueGang && f.Tenant == tenant:
			// Kueue admits the gang to one flavor, whose pool cannot hold
			// it all: some pods stay Pending. The finding names no
			// scheduler reason, so any FailedScheduling message will do.
			e.refused = true
			e.findings = append(e.findings, string(f.Check)+": "+f.Message)
		case f.Check == resourcequota.IDQuotaFit && f.Tenant == tenant:
			e.quota = true
			e.findings = append(e.findings, string(f.Check)+": "+f.Message)
		case f.Check == provisioning.IDAutoscalerDRAFromZero:
			// From the standing fleet some pods pend for a node that
			// cluster-autoscaler never adds: its template carries no
			// ResourceSlices.
			e.refused = true
			e.noScaleUp = sched.ErrReasonClaims
			e.findings = append(e.findings, string(f.Check)+": "+f.Message)
		case f.Check == scheduling.IDCPUOnGPU:
			e.gpuOK = true
		}
	}
	for why := range reasons {
		e.reasons = append(e.reasons, why)
	}
	sort.Strings(e.reasons)
	return e
}

// findingReasons is the kube-scheduler wording a finding rests on: the
// per-node reasons of every pool for Lands, and the reason the message ends
// with for the multi-pod proofs.
func findingReasons(r *check.Report, f check.Finding, cellReasons func(pool string) []string) []string {
	if f.Check == scheduling.IDLands {
		var out []string
		if w := r.Row(f.Class); w != nil {
			for j, pool := range r.Pools {
				if !w.Fits(j) {
					out = append(out, cellReasons(pool)...)
				}
			}
		}
		return out
	}
	i := strings.LastIndex(f.Message, ": ")
	if i < 0 {
		return nil
	}
	return strings.Split(f.Message[i+2:], ", ")
}

// cellReasons is the checker's reasons for a class on a pool's nodes of
// the instance type the harness created: a cell's reasons are those of all
// the pool's types, and another type may fail for another reason. (The
// report keeps no per-node verdicts, so the cell is evaluated again.)
func (fr *fleetRun) cellReasons(c *sched.Class, pool string) []string {
	for i := range fr.cl.Pools {
		if fr.cl.Pools[i].Name != pool {
			continue
		}
		seen := map[string]bool{}
		var out []string
		for _, v := range sched.Evaluate(c, &fr.cl.Pools[i]).Nodes {
			if v.InstanceType != fr.nodes.typeOf[pool] {
				continue
			}
			for _, r := range v.Reasons {
				if !seen[r] {
					seen[r] = true
					out = append(out, r)
				}
			}
		}
		sort.Strings(out)
		return out
	}
	return nil
}
