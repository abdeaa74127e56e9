package queueing

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
)

const IDKueueOrder check.ID = "KueueOrder"

// KueueOrder requires each flavor of a resource group to list its
// resources in coveredResources' order, as Kueue's validation does.
func KueueOrder(a *check.Admission) []check.Finding {
	var out []check.Finding
	for _, rg := range a.CQ.Spec.ResourceGroups {
		for _, f := range rg.Flavors {
			var names []corev1.ResourceName
			for _, res := range f.Resources {
				names = append(names, res.Name)
			}
			if !slices.Equal(names, rg.CoveredResources) {
				out = append(out, check.Finding{Severity: check.Error, Check: IDKueueOrder, Tenant: a.Queue.Tenant, Pool: f.Name,
					Message: fmt.Sprintf("ClusterQueue %s flavor %s lists %v, not coveredResources' order %v", a.CQ.Name, f.Name, names, rg.CoveredResources)})
			}
		}
	}
	return out
}
