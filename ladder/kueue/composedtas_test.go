//go:build composed

package kueuediff

import (
	"fmt"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	utiltas "sigs.k8s.io/kueue/pkg/util/tas"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/internal/handoff"
)

// ungate is what Kueue v0.19.2's topology ungater does to the pods of a
// workload admitted by topology with psa (pkg/controller/tas
// topology_ungater.go): assignGatedPodsToDomainsGreedy hands the gated
// pods, in order, to the assignment's domains, each as many as its count,
// and podsToUngateInfo gives each pod its domain's values as node labels
// of the assignment's levels (utiltas.NodeLabelsFromKeysAndValues), which
// Reconcile copies into its nodeSelector as it lifts the
// kueue.x-k8s.io/topology gate. The ungater is a controller of Kueue's
// manager and its helpers are unexported, so this follows them over
// Kueue's exported pkg/util/tas; an Indexed Job's pods go by rank
// (assignGatedPodsToDomainsByRanks) to the same domains, as many to each.
// The record gets the pods' labels and the flavor's nodes in Kueue's TAS
// cache, which the kube-scheduler half places them on.
func (k *Kueue) ungate(r *handoff.Record, psa *kueue.PodSetAssignment) error {
	if kueue.TopologySchedulingGate != handoff.TopologyGate {
		return fmt.Errorf("Kueue's topology gate is %q, the handoff's %q", kueue.TopologySchedulingGate, handoff.TopologyGate)
	}
	r.Ungated = nil
	for d := range utiltas.InternalSeqFrom(psa.TopologyAssignment) {
		labels := utiltas.NodeLabelsFromKeysAndValues(psa.TopologyAssignment.Levels, d.Values)
		for range d.Count {
			r.Ungated = append(r.Ungated, labels)
		}
	}
	if int32(len(r.Ungated)) != r.Admitted {
		return fmt.Errorf("Kueue's topology assignment places %d pods, %d admitted", len(r.Ungated), r.Admitted)
	}
	r.TASNodes = nil
	for _, n := range k.standing {
		if n.Labels[keys.LabelPool] == r.Pool {
			r.TASNodes = append(r.TASNodes, *n)
		}
	}
	return nil
}
