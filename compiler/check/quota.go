package check

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
)

// Commit is one resource's total nominal quota against the fleet's
// physical maximum.
type Commit struct {
	Resource string  `json:"resource"`
	Quota    string  `json:"quota"`
	Capacity string  `json:"capacity"`
	Ratio    float64 `json:"ratio"`
}

var quotaResources = []corev1.ResourceName{catalog.ResourceGPU, corev1.ResourceCPU, corev1.ResourceMemory}

// Quota proves that each tenant's quota plus borrowing holds one whole
// workload of every class it may use (a Job's whole gang, one pod of any
// other kind): otherwise Kueue reports ExceedsMaxQuota and the quota
// admission rejects it. It also reports overcommit.
func Quota(cl *Cluster, in Intent) ([]Finding, []Commit) {
	classes := map[string]*Class{}
	for i := range cl.Classes {
		classes[cl.Classes[i].Name] = &cl.Classes[i]
	}
	var out []Finding
	// Sums over a fleet are float64: they are reported, not compared
	// exactly, and 10,000 tenants' memory in milli-units overflows int64.
	nominal := map[corev1.ResourceName]float64{}
	for _, t := range in.Tenants {
		for _, r := range quotaResources {
			nominal[r] += float64(t.Nominal[string(r)])
		}
		for _, name := range t.Classes {
			c := classes[name]
			if c == nil {
				continue
			}
			pods := int64(1)
			if c.Gang {
				pods = int64(c.Pods)
			}
			req := c.Info.Request
			var short []string
			for _, r := range quotaResources {
				hard, limited := t.Hard[string(r)]
				q := req[r]
				need := mulSat(q.MilliValue(), pods)
				if limited && need > hard {
					short = append(short, fmt.Sprintf("%s needs %s, quota holds %s", r, milli(need, r), milli(hard, r)))
				}
			}
			if hard, limited := t.Hard["pods"]; limited && mulSat(pods, 1000) > hard {
				short = append(short, fmt.Sprintf("pods needs %d, quota holds %s", pods, milli(hard, "pods")))
			}
			if len(short) > 0 {
				out = append(out, Finding{Severity: Error, Check: IDQuotaFit, Class: name, Tenant: t.Name,
					Message: fmt.Sprintf("tenant %s's quota plus borrowing cannot hold one %s of class %s (ExceedsMaxQuota): %s",
						t.Name, unit(c), name, strings.Join(short, "; "))})
			}
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
	return out, commits
}

func unit(c *Class) string {
	if c.Gang {
		return fmt.Sprintf("gang (%d pods)", c.Pods)
	}
	return "pod"
}

// fleetCapacity is every pool at max size, on its largest instance type, in
// milli-units.
func fleetCapacity(cl *Cluster, r corev1.ResourceName) float64 {
	var total float64
	for _, p := range cl.Pools {
		var best int64
		for _, n := range p.Nodes {
			q := n.Status.Allocatable[r]
			best = max(best, q.MilliValue())
		}
		total += float64(best) * float64(p.MaxNodes)
	}
	return total
}

// mulSat is a*b for non-negative a and b, or MaxInt64 where that
// overflows: a need that large exceeds any quota, as it should.
func mulSat(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// milli formats a milli-valued amount in the resource's natural unit.
func milli(v int64, r corev1.ResourceName) string {
	if r != corev1.ResourceCPU && r != corev1.ResourceMemory {
		return strconv.FormatInt(v/1000, 10)
	}
	return milliF(float64(v), r)
}

func milliF(v float64, r corev1.ResourceName) string {
	switch r {
	case corev1.ResourceCPU:
		return strconv.FormatFloat(v/1000, 'f', -1, 64)
	case corev1.ResourceMemory:
		return strconv.FormatFloat(v/1000/(1<<30), 'f', 1, 64) + "Gi"
	}
	return strconv.FormatFloat(math.Floor(v/1000), 'f', -1, 64)
}
