package resourcequota

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/internal/sat"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDQuotaFit check.ID = "QuotaFit"

// QuotaFit proves that each tenant's quota plus borrowing holds one whole
// workload of every class it may use (a Job's whole gang, all replicas of
// any other kind): otherwise Kueue reports ExceedsMaxQuota and the quota
// admission rejects pods.
func QuotaFit(cl *sched.Cluster, _ []sched.Row, in check.Intent) []check.Finding {
	var out []check.Finding
	for _, t := range in.Tenants {
		for _, name := range t.Classes {
			c := cl.Class(name)
			if c == nil {
				continue
			}
			// All of a workload's pods run at once in the namespace:
			// a Job's gang, and every replica of a Deployment or
			// StatefulSet (with one pod, replicas 4-6 of 6 failed to be
			// created while the checker said the quota held). A Job that
			// runs in waves needs one pod at a time.
			pods := max(int64(c.Need()), 1)
			if short, whose := tenantShort(c, t, in, pods, "quota plus borrowing"); len(short) > 0 {
				out = append(out, check.Finding{Severity: check.Error, Check: IDQuotaFit, Class: name, Tenant: t.Name,
					Message: fmt.Sprintf("tenant %s's %s cannot hold %s of class %s (ExceedsMaxQuota): %s",
						t.Name, whose, unit(c), name, strings.Join(short, "; "))})
			}
		}
	}
	return out
}

// tenantShort lists what pods pods of class c need beyond tenant t's
// quotas, and whose they are: its unscoped quota (named unscoped), and the
// one scoped to the class's PriorityClass, since the API server's quota
// admission checks every quota whose scope matches.
func tenantShort(c *sched.Class, t check.TenantIntent, in check.Intent, pods int64, unscoped string) (short []string, whose string) {
	short, whose = shortOf(c.Info, pods, t.Hard, "quota"), unscoped
	if pr := in.Priorities[c.Name].Name; t.PriorityHard[pr] != nil {
		if scoped := shortOf(c.Info, pods, t.PriorityHard[pr], "priority "+pr+"'s quota"); len(scoped) > 0 {
			short, whose = append(short, scoped...), "quotas"
		}
	}
	if slices.Contains(t.SharePriorities, in.Priorities[c.Name].Name) {
		if scoped := shortOf(c.Info, pods, t.Share, "its namespace's share of the quota"); len(scoped) > 0 {
			short, whose = append(short, scoped...), "quotas"
		}
	}
	return short, whose
}

// shortOf lists what pods pods of info need beyond hard: their requests,
// and the devices their ResourceClaims are charged (an unqueued DRA
// class's claims are refused at quota admission beyond them, and its pods
// wait for ever; Kueue's quota holds a queued one's too, KueueQuota).
func shortOf(info *sched.PodInfo, pods int64, hard map[string]int64, what string) []string {
	var short []string
	req := info.Request
	claimed := info.Claims.ClaimQuota()
	if !info.Claims.Asks() {
		// The claim kube-scheduler makes for a pod asking nvidia.com/gpu
		// where the driver chart's DeviceClass maps it, on a node that
		// advertises none: charged on the bridged pools only, counted
		// here wherever the class may land.
		claimed = info.Bridge.ClaimQuota()
	}
	for _, r := range slices.Sorted(maps.Keys(claimed)) {
		if h, limited := hard[string(r)]; limited {
			if need := sat.Mul(sat.Mul(claimed[r], pods), 1000); need > h {
				short = append(short, fmt.Sprintf("%s needs %s, %s holds %s", r, milli(need, r), what, milli(h, r)))
			}
		}
	}
	for _, r := range check.QuotaResources {
		h, limited := hard[string(r)]
		q := req[r]
		// What the claims are charged of it as an extended resource
		// (a DRA class's devices of a class that names it).
		q.Add(*resource.NewQuantity(claimed[corev1.DefaultResourceRequestsPrefix+r], resource.DecimalSI))
		need := sat.Mul(q.MilliValue(), pods)
		if limited && need > h {
			short = append(short, fmt.Sprintf("%s needs %s, %s holds %s", r, milli(need, r), what, milli(h, r)))
		}
	}
	if h, limited := hard["pods"]; limited && sat.Mul(pods, 1000) > h {
		short = append(short, fmt.Sprintf("pods needs %d, %s holds %s", pods, what, milli(h, "pods")))
	}
	return short
}

func unit(c *sched.Class) string {
	switch {
	case c.Gang:
		return fmt.Sprintf("one gang (%d pods)", c.Pods)
	case c.Need() > 1:
		return fmt.Sprintf("all %d replicas", c.Pods)
	}
	return "one pod"
}

// milli formats a milli-valued amount in the resource's natural unit.
func milli(v int64, r corev1.ResourceName) string {
	if r != corev1.ResourceCPU && r != corev1.ResourceMemory {
		return strconv.FormatInt(v/1000, 10)
	}
	return check.FormatMilli(float64(v), r)
}
