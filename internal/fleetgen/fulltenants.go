package fleetgen

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/spec"
)

// fullTenants gives every class a tenant, with quotas about one workload
// of each of its classes (a little under as often as a little over), in a
// cohort tree with weights, borrowing and lending, and some per-pool and
// per-priority quotas.
func (g *gen) fullTenants(f *spec.Fleet, names []string, needs map[string]need) {
	w := float64(1 + g.r.IntN(3))
	f.Cohorts = map[string]spec.Cohort{"org": {}, "lab-0": {Parent: "org", Weight: &w}, "lab-1": {Parent: "org"}}
	pools := spec.Keys(f.Pools)
	tenants := max(2, len(names)/2)
	for i := 0; i < tenants; i++ {
		t := spec.Tenant{Namespaces: []string{fmt.Sprintf("ns-%d", i)}, Defaults: spec.Resources{CPU: "100m", Memory: "256Mi"}}
		// Classes round-robin, so each has a tenant; some tenants share one.
		for k := i; k < len(names); k += tenants {
			t.Classes = append(t.Classes, names[k])
		}
		if g.chance(0.3) {
			t.Classes = appendUnique(t.Classes, g.pick(names))
		}
		var total need
		for _, c := range t.Classes {
			n := needs[c]
			total.pods += n.pods
			total.cpuMilli += n.cpuMilli * n.pods
			total.memMi += n.memMi * n.pods
			total.gpus += n.gpus * n.pods
		}
		// Near the limit: -1, 0 or +1 GPU, and cpu and memory with a
		// little to spare, or none.
		gpu := max(0, total.gpus+g.r.Int64N(3)-1)
		spare := g.r.Int64N(2)
		t.Quota = &spec.Quota{GPU: &gpu,
			CPU:    spec.Quantity(fmt.Sprintf("%dm", total.cpuMilli+spare*1000)),
			Memory: spec.Quantity(fmt.Sprintf("%dMi", total.memMi+spare*1024))}
		if g.chance(0.2) {
			pods := max(0, total.pods+g.r.Int64N(3)-1)
			t.Quota.Pods = &pods
		}
		if g.chance(0.7) {
			t.Cohort = g.pick([]string{"org", "lab-0", "lab-1"})
			if g.chance(0.6) {
				t.Borrow = g.limits()
			}
			if g.chance(0.4) {
				t.Lend = g.limits()
			}
			if g.chance(0.3) {
				tw := float64(1 + g.r.IntN(4))
				t.Weight = &tw
			}
		}
		if g.chance(0.15) {
			t.PoolQuotas = map[string]spec.Quota{g.pick(pools): *g.limits()}
		}
		if g.chance(0.15) {
			t.PriorityQuotas = map[string]spec.Quota{g.pick([]string{"batch", "dev"}): *g.limits()}
		}
		if g.chance(0.2) {
			t.Queueing = "StrictFIFO"
		}
		f.Tenants[fmt.Sprintf("tenant-%d", i)] = t
	}
}
