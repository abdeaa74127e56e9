package queueing

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

const IDKueueDRA check.ID = "KueueDRA"

// Kueue charges a queued workload's claims only through its
// Configuration's deviceClassMappings (sigs.k8s.io/kueue v0.19.2 pkg/dra,
// claims.go GetResourceRequestsForResourceClaimTemplates): a claim of an
// unmapped DeviceClass makes the workload inadmissible ("DeviceClass %s is
// not mapped in DRA configuration"). And it admits a claim with CEL
// selectors only while the cluster's ResourceSlices already hold enough
// matching devices (validateCELSelectorsAgainstDevices), which a DRA pool
// scaled to zero never has: its pods, which would scale the pool up, are
// never made. ladder/kueue runs pkg/dra on the tree's claims and mappings.
const (
	reasonKueueDRAUnmapped = "tenant %s, class %s: DeviceClass %s is not mapped in DRA configuration for podset main (%s), so Kueue never admits its workloads; add it to the Kueue manager's deviceClassMappings"
	reasonKueueDRASelector = "tenant %s, class %s: ResourceClaimTemplate %s selects devices by CEL, which Kueue admits only while the cluster's ResourceSlices hold enough matching devices: \"insufficient matching devices for CEL selector\" on DRA pools scaled to zero, whose nodes only its pods would bring"
)

// KueueDRA finds queued classes whose claims Kueue cannot charge.
func KueueDRA(a *check.Admission) []check.Finding {
	var out []check.Finding
	for _, qc := range a.Classes {
		claims := qc.Class.Info.Claims
		if !claims.Asks() {
			continue
		}
		for _, rc := range claims.Claims {
			for _, r := range rc.Spec.Devices.Requests {
				if r.Exactly == nil {
					continue
				}
				add := func(msg string) {
					out = append(out, check.Finding{Severity: check.Error, Check: IDKueueDRA, Tenant: a.Queue.Tenant, Class: qc.Class.Name, Message: msg})
				}
				if _, ok := a.Model.DeviceClasses[r.Exactly.DeviceClassName]; !ok {
					add(fmt.Sprintf(reasonKueueDRAUnmapped, a.Queue.Tenant, qc.Class.Name, r.Exactly.DeviceClassName, tree.KueueDRAConfigPath))
				}
				if len(r.Exactly.Selectors) > 0 {
					add(fmt.Sprintf(reasonKueueDRASelector, a.Queue.Tenant, qc.Class.Name, templateOf(qc.Class)))
				}
			}
		}
	}
	return out
}

// templateOf names the class pod's claim template.
func templateOf(c *sched.Class) string {
	for _, pc := range c.Pod.Spec.ResourceClaims {
		if pc.ResourceClaimTemplateName != nil {
			return *pc.ResourceClaimTemplateName
		}
	}
	return ""
}
