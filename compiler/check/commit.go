package check

import (
	"math"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// Commit is one resource's total nominal quota against the fleet's
// physical maximum.
type Commit struct {
	Resource string  `json:"resource"`
	Quota    string  `json:"quota"`
	Capacity string  `json:"capacity"`
	Ratio    float64 `json:"ratio"`
}

// Commits is each resource's total nominal quota against the fleet's
// physical maximum: how far the tenants overcommit it.
func Commits(cl *sched.Cluster, in Intent) []Commit {
	// Sums over a fleet are float64: they are reported, not compared
	// exactly, and 10,000 tenants' memory in milli-units overflows int64.
	nominal := map[corev1.ResourceName]float64{}
	for _, t := range in.Tenants {
		for _, r := range quotaResources {
			nominal[r] += float64(t.Nominal[string(r)])
		}
	}
	var commits []Commit
	for _, r := range quotaResources {
		capacity := fleetCapacity(cl, r)
		c := Commit{Resource: string(r), Quota: milliF(nominal[r], r), Capacity: milliF(capacity, r)}
		if capacity > 0 {
			c.Ratio = math.Round(nominal[r]/capacity*100) / 100
		}
		commits = append(commits, c)
	}
	return commits
}

// fleetCapacity is every pool at max size, on its largest instance type (a
// live pool: its nodes), in milli-units.
func fleetCapacity(cl *sched.Cluster, r corev1.ResourceName) float64 {
	var total float64
	for _, p := range cl.Pools {
		var best int64
		for _, n := range p.Nodes {
			q := n.Status.Allocatable[r]
			if p.Live {
				total += float64(q.MilliValue()) // each live node once
			}
			best = max(best, q.MilliValue())
		}
		if !p.Live {
			total += float64(best) * float64(p.MaxNodes)
		}
	}
	return total
}
