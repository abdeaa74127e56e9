package resourcequota

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDQuotaOverCapacity check.ID = "QuotaOverCapacity"

// Neither a ResourceQuota nor a ClusterQueue's nominalQuota knows what the
// nodes hold: the API server admits, and Kueue's flavor assigner admits,
// pods up to the quota, and kube-scheduler leaves those the pools cannot
// hold Pending with NodeResourcesFit's reason (k8s.io/kubernetes v1.36,
// pkg/scheduler/framework/plugins/noderesources/fit.go,
// fitsRequest: "Insufficient " + the resource). A quota over the GPUs its
// classes can reach promises GPUs that never come.
const (
	reasonInsufficient = "Insufficient " + string(catalog.ResourceGPU)
	reasonTenantOver   = "tenant %s's quota of %s %s exceeds the %s its classes can reach (%s at max size): pods admitted beyond them stay Pending (%s); lower the quota or raise the pools' max size"
	reasonFleetOver    = "the tenants' quotas total %s %s, over the fleet's %s at max size (%.2f times): pods admitted beyond them stay Pending (%s); lower the quotas or raise the pools' max size"
)

// QuotaOverCapacity warns of a tenant whose nominal GPU quota exceeds the
// GPUs of every pool its GPU classes land on, at max size, and of a fleet
// whose tenants' quotas together exceed its GPUs. GPUs other than the
// device plugin's nvidia.com/gpu (MIG slices, DRA claims) are not counted
// by the pools' allocatable, so a tenant with such a class, and then the
// fleet, are left alone; so is a tenant with a GPU class that lands
// nowhere (Lands is the root cause), and a running cluster's nodes (check
// --nodes), which the autoscalers grow. The fleet's warning is a
// follow-on of a tenant's, so comes only where no tenant's does.
func QuotaOverCapacity(cl *sched.Cluster, rows []sched.Row, in check.Intent) []check.Finding {
	for i := range cl.Pools {
		if cl.Pools[i].Live {
			return nil
		}
	}
	at := make(map[string]int, len(cl.Classes))
	for i := range cl.Classes {
		at[cl.Classes[i].Name] = i
	}
	var out []check.Finding
	var quota float64
	countable := true
	for _, t := range in.Tenants {
		nominal := float64(t.Nominal[string(catalog.ResourceGPU)])
		quota += nominal
		reach := map[int]bool{}
		skip := false
		for _, name := range t.Classes {
			i, found := at[name]
			if !found {
				continue
			}
			c := &cl.Classes[i]
			if otherGPUs(c.Info) {
				skip, countable = true, false
				break
			}
			if g := c.Info.Request[catalog.ResourceGPU]; g.IsZero() || i >= len(rows) {
				continue
			}
			lands := false
			for k := range rows[i].Evaluated {
				if reaches(rows[i].Evaluated[k]) {
					reach[int(rows[i].At[k])] = true
					lands = true
				}
			}
			if !lands {
				skip = true
				break
			}
		}
		if skip {
			continue
		}
		var capacity float64
		var pools []string
		for p := range reach {
			capacity += check.PoolCapacity(&cl.Pools[p], catalog.ResourceGPU)
			pools = append(pools, cl.Pools[p].Name)
		}
		if nominal > capacity {
			slices.Sort(pools)
			where := "no pool"
			if len(pools) > 0 {
				where = "pools " + strings.Join(pools, ", ")
			}
			out = append(out, check.Finding{Severity: check.Warning, Check: IDQuotaOverCapacity, Tenant: t.Name,
				Message: fmt.Sprintf(reasonTenantOver, t.Name, gpus(nominal), catalog.ResourceGPU, gpus(capacity), where, reasonInsufficient)})
		}
	}
	if !countable || len(out) > 0 {
		return out
	}
	var fleet float64
	for i := range cl.Pools {
		fleet += check.PoolCapacity(&cl.Pools[i], catalog.ResourceGPU)
	}
	if fleet > 0 && quota > fleet {
		out = append(out, check.Finding{Severity: check.Warning, Check: IDQuotaOverCapacity,
			Message: fmt.Sprintf(reasonFleetOver, gpus(quota), catalog.ResourceGPU, gpus(fleet), quota/fleet, reasonInsufficient)})
	}
	return out
}

// reaches is whether a class's cell credits its pool: it fits there.
// A variable so that the table test can show it catches a check that
// credits every pool.
var reaches = func(c sched.Cell) bool { return c.Fits }

// otherGPUs reports whether a class gets GPUs some other way than the
// device plugin's nvidia.com/gpu: MIG slices, or DRA claims (its own, or
// those kube-scheduler makes for its nvidia.com/gpu on DRA pools).
func otherGPUs(info *sched.PodInfo) bool {
	if info.Claims.Asks() || info.Bridge != nil {
		return true
	}
	for r := range info.Request {
		if strings.HasPrefix(string(r), "nvidia.com/mig-") {
			return true
		}
	}
	return false
}

// gpus is a milli-count of GPUs in whole ones.
func gpus(milli float64) string { return check.FormatMilli(milli, catalog.ResourceGPU) }
