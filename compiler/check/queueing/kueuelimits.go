package queueing

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

const IDKueueLimits check.ID = "KueueLimits"

// KueueLimits holds the ResourceFlavors and the ClusterQueues' resource
// groups to the limits of Kueue's CRDs, which the API server enforces.
func KueueLimits(m *kueuemodel.Model, queues []kueuemodel.Queue) []check.Finding {
	var out []check.Finding
	for _, name := range slices.Sorted(maps.Keys(m.Flavors)) {
		f := m.Flavors[name]
		if n := len(f.NodeLabels); n > kueue.MaxFlavorLabels {
			out = append(out, check.Finding{Severity: check.Error, Check: IDKueueLimits, Pool: name,
				Message: fmt.Sprintf("ResourceFlavor %s has %d nodeLabels; Kueue's CRD allows %d: drop extra pool labels", name, n, kueue.MaxFlavorLabels)})
		}
		if n := len(f.NodeTaints); n > kueue.MaxFlavorTaints {
			out = append(out, check.Finding{Severity: check.Error, Check: IDKueueLimits, Pool: name,
				Message: fmt.Sprintf("ResourceFlavor %s has %d nodeTaints; Kueue's CRD allows %d", name, n, kueue.MaxFlavorTaints)})
		}
	}
	for _, q := range queues {
		cq := m.Queues[q.ClusterQueue]
		for _, rg := range cq.Spec.ResourceGroups {
			if len(rg.Flavors) > kueue.MaxFlavorsInGroup {
				out = append(out, check.Finding{Severity: check.Error, Check: IDKueueLimits, Tenant: q.Tenant,
					Message: fmt.Sprintf("ClusterQueue %s lists %d flavors in a resource group; Kueue's CRD allows %d", cq.Name, len(rg.Flavors), kueue.MaxFlavorsInGroup)})
			}
		}
	}
	return out
}
