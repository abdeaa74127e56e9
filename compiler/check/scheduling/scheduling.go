// Package scheduling holds the checks that restate kube-scheduler (v1.36):
// its Filter plugins and its scheduling cycle, as compiler/check/sched
// models them, on each class's row of cells. Lands, Gang, Capacity,
// InterPodAffinity and PodTopologySpread are the filters' and the cycle's
// verdicts on a class's pods; SystemLands theirs on the tree's own
// scheduler Deployment; Rollout theirs on a Deployment's surge pod, which
// the Deployment controller makes beside every old one; CPUOnGPU,
// OnDemandOnSpot and Dedicated are gpufleet's rules read off the cells
// kube-scheduler's filters give; SchedulerVersion says whose filters they
// are. make test-kube-scheduler and make e2e judge them.
package scheduling

import (
	"fmt"
	"sort"
	"strings"
)

// histogram formats reasons with their counts, sorted, as kube-scheduler's
// FailedScheduling message does: "2 Insufficient cpu, 1 node(s) had ...".
func histogram(counts map[string]int) string {
	reasons := make([]string, 0, len(counts))
	for r := range counts {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%d %s", counts[r], r)
	}
	return strings.Join(parts, ", ")
}
