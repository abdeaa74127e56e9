package compiler

import (
	corev1 "k8s.io/api/core/v1"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/cost"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/provisioning"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/check/scheduling"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/load"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// Intent tells the checker what the spec meant, for the proofs that the
// rendered objects alone cannot make.
func Intent(d *derive.Fleet) check.Intent {
	in := check.Intent{
		OnDemandOnly: map[string]bool{},
		Dedicated:    map[string][]string{},
		Priorities:   map[string]check.PriorityIntent{},
		Version:      d.Spec.Cluster.Version,
	}
	if d.Cloud != nil {
		in.SpotNoticeSeconds = d.Cloud.SpotNoticeSeconds()
		in.AutoscalerGPULabel = d.Cloud.AutoscalerGPULabel()
	}
	for _, c := range d.Classes {
		p := d.Spec.Priorities[c.Spec.Priority]
		for _, row := range append([]string{c.Name}, roleRows(&c)...) {
			in.OnDemandOnly[row] = c.Spec.Capacity == spec.OnDemand
			in.Priorities[row] = check.PriorityIntent{Name: c.Spec.Priority, Value: p.Value, Preempts: p.Preemption != "Never", Batch: c.Spec.Batch()}
		}
	}
	for _, p := range d.Pools {
		if len(p.Spec.DedicatedTo) > 0 {
			in.Dedicated[p.Name] = withRoleRows(d, p.Spec.DedicatedTo)
		}
	}
	for _, t := range d.Tenants {
		ti := check.TenantIntent{
			Name: t.Name, Classes: withRoleRows(d, t.Spec.Classes), Namespaces: t.Spec.Namespaces,
			Hard: quotaMilli(t.Hard), Nominal: quotaMilli(derive.QuotaList(t.Spec.Quota)),
		}
		for pr, q := range t.Spec.PriorityQuotas {
			if ti.PriorityHard == nil {
				ti.PriorityHard = map[string]map[string]int64{}
			}
			ti.PriorityHard[pr] = quotaMilli(derive.QuotaList(&q))
		}
		for _, ns := range t.Spec.Namespaces {
			share, ok := t.Unqueued[ns]
			if !ok {
				continue
			}
			m := quotaMilli(share)
			if ti.Share == nil {
				ti.Share, ti.SharePriorities = m, t.UnqueuedPriorities
			}
			for k, v := range m {
				ti.Share[k] = min(ti.Share[k], v)
			}
		}
		in.Tenants = append(in.Tenants, ti)
	}
	return in
}

var quotaNames = map[corev1.ResourceName]string{
	derive.QuotaGPU: keys.ResourceGPU, derive.QuotaCPU: "cpu", derive.QuotaMemory: "memory", derive.QuotaPods: "pods",
}

// quotaMilli is a quota's hard limits in milli-units, keyed as the checks
// read them: requests by resource, and what a pod's ResourceClaims are
// charged ("<class>.deviceclass.resource.k8s.io/devices") by that name.
func quotaMilli(rl corev1.ResourceList) map[string]int64 {
	out := map[string]int64{}
	for k, v := range rl {
		if name, ok := quotaNames[k]; ok {
			out[name] = v.MilliValue()
		} else if strings.HasSuffix(string(k), corev1.ResourceClaimsPerClass) {
			out[string(k)] = v.MilliValue()
		}
	}
	return out
}

// costTenants are the tenants as the cost is priced.
func costTenants(in check.Intent) []cost.Tenant {
	out := make([]cost.Tenant, len(in.Tenants))
	for i, t := range in.Tenants {
		out[i] = cost.Tenant{Name: t.Name, Classes: t.Classes, Nominal: t.Nominal}
	}
	return out
}

// Prices are the fleet's hourly prices: the cloud's for its region (or
// prices.region), under the spec's own.
func Prices(d *derive.Fleet) catalog.Prices {
	return catalog.NewPrices(d.Cloud.Prices(), d.Spec.Cluster.Region, d.Spec.Prices)
}

// severities applies the spec's checks settings to the checks the registry
// lets a spec lower (check.Check.Lowerable, in compiler/check/registry).
func severities(f *spec.Fleet, r *check.Report) {
	if f.Checks == nil {
		return
	}
	set := map[check.ID]string{scheduling.IDCPUOnGPU: f.Checks.CPUOnGPU, scheduling.IDOnDemandOnSpot: f.Checks.OnDemandOnSpot, scheduling.IDDedicated: f.Checks.Dedicated}
	for i := range r.Findings {
		if s := set[r.Findings[i].Check]; s != "" {
			r.Findings[i].Severity = s
		}
	}
	r.Sort()
}

// position points each finding at the spec entry it concerns.
func position(e load.Entries, r *check.Report) {
	for i := range r.Findings {
		f := &r.Findings[i]
		switch {
		case f.Check == scheduling.IDSchedulerVersion:
			f.Pos = e.Pos("cluster", "version")
		case f.Check == provisioning.IDAutoscalerDRAFromZero:
			// The fix is the pool's size, whichever classes it strands.
			f.Pos = e.Pos("pools", f.Pool)
		case f.Tenant != "":
			f.Pos = e.Pos("tenants", f.Tenant)
		case f.Class != "":
			f.Pos = e.Pos("classes", f.Class)
		case f.Pool != "":
			f.Pos = e.Pos("pools", f.Pool)
		}
	}
}

// KueueIntent lists each tenant's queued classes for the Kueue checks.
func KueueIntent(d *derive.Fleet) []kueuemodel.Queue {
	var out []kueuemodel.Queue
	for _, t := range d.Tenants {
		if !t.Queued {
			continue
		}
		q := kueuemodel.Queue{Tenant: t.Name, ClusterQueue: t.Name, Namespace: t.Spec.Namespaces[0], Namespaces: t.Spec.Namespaces}
		for _, name := range t.Spec.Classes {
			if c := d.Class(name); c != nil && c.Spec.Queued() {
				q.Classes = append(q.Classes, name)
			}
		}
		out = append(out, q)
	}
	return out
}

// roleRows are the checker's rows of an ML class's roles but its primary
// one (sched.RoleRow), which the class's own row is.
func roleRows(c *derive.Class) []string {
	var out []string
	if r := c.Spec.PrimaryRole(); r != nil {
		for _, role := range c.Spec.Roles {
			if role.Name != r.Name {
				out = append(out, sched.RoleRow(c.Name, role.Name))
			}
		}
	}
	return out
}

// withRoleRows is classes, each followed by its role rows.
func withRoleRows(d *derive.Fleet, classes []string) []string {
	var out []string
	for _, name := range classes {
		out = append(out, name)
		if c := d.Class(name); c != nil {
			out = append(out, roleRows(c)...)
		}
	}
	return out
}
