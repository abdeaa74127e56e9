package check

import (
	"math"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// QuotaResources are the resources a tenant's quota is proved and
// reported for.
var QuotaResources = []corev1.ResourceName{catalog.ResourceGPU, corev1.ResourceCPU, corev1.ResourceMemory}

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
		for _, r := range QuotaResources {
			nominal[r] += float64(t.Nominal[string(r)])
		}
	}
	var commits []Commit
	for _, r := range QuotaResources {
		capacity := fleetCapacity(cl, r)
		c := Commit{Resource: string(r), Quota: FormatMilli(nominal[r], r), Capacity: FormatMilli(capacity, r)}
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
	for i := range cl.Pools {
		total += PoolCapacity(&cl.Pools[i], r)
	}
	return total
}

// PoolCapacity is one pool's allocatable r at max size, on its largest
// instance type (a live pool: its nodes), in milli-units.
func PoolCapacity(p *sched.Pool, r corev1.ResourceName) float64 {
	var total float64
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
	return total
}

// FormatMilli formats a milli-valued amount in the resource's natural
// unit: cores, GiB, or a count.
func FormatMilli(v float64, r corev1.ResourceName) string {
	switch r {
	case corev1.ResourceCPU:
		return strconv.FormatFloat(v/1000, 'f', -1, 64)
	case corev1.ResourceMemory:
		return strconv.FormatFloat(v/1000/(1<<30), 'f', 1, 64) + "Gi"
	}
	return strconv.FormatFloat(math.Floor(v/1000), 'f', -1, 64)
}
