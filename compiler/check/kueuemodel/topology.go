package kueuemodel

import (
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// TopologyRequest is what a pod template asks of Kueue's topology-aware
// scheduling: the PodSet's TopologyRequest, which Kueue's Job integration
// makes of the template's annotations (jobframework.NewPodSetTopologyRequest).
type TopologyRequest struct {
	// Explicit is true when the template asks at all; Level is the node
	// label it asks for ("" when unconstrained), Required whether the
	// whole PodSet must fit one domain of it.
	Explicit bool
	Level    string
	Required bool
	// SliceLevel and SliceSize split the PodSet into slices of SliceSize
	// pods, each within one domain of SliceLevel; unset, a slice is one
	// pod at the lowest level.
	SliceLevel string
	SliceSize  int64
}

// TopologyOf is the pod template's TopologyRequest. Kueue reads the slice
// annotations only as a pair (podSetTopologyRequestBuilder.Build); a slice
// with no required, preferred or unconstrained request, which gpufleet
// never writes, is not modelled.
func TopologyOf(pod *corev1.Pod) TopologyRequest {
	a := pod.Annotations
	var t TopologyRequest
	if l, ok := a[kueue.AnnotationRequiredTopology]; ok {
		t = TopologyRequest{Explicit: true, Level: l, Required: true}
	} else if l, ok := a[kueue.AnnotationPreferredTopology]; ok {
		t = TopologyRequest{Explicit: true, Level: l}
	} else if _, ok := a[kueue.AnnotationUnconstrainedTopology]; ok {
		t = TopologyRequest{Explicit: true}
	} else {
		return TopologyRequest{}
	}
	l, okL := a[kueue.AnnotationSliceTopology]
	n, err := strconv.ParseInt(a[kueue.AnnotationSliceSize], 10, 32)
	if okL && err == nil && n >= 1 {
		t.SliceLevel, t.SliceSize = l, n
	}
	return t
}

// slice is the request's slice size and level, one pod at levels' lowest
// when it names none (getSliceSizeWithSinglePodAsDefault,
// sliceLevelKeyWithDefault).
func (t TopologyRequest) slice(levels []string) (int64, string) {
	if t.SliceSize > 0 {
		return t.SliceSize, t.SliceLevel
	}
	if len(levels) == 0 {
		return 1, ""
	}
	return 1, levels[len(levels)-1]
}

// TASOnly is Kueue's ClusterQueue isTASOnly
// (pkg/cache/scheduler/clusterqueue.go): every flavor of every resource
// group has a Topology. Its workloads that ask nothing are placed by
// topology all the same (implied, unconstrained).
func (m *Model) TASOnly(cq string) bool {
	q := m.Queues[cq]
	if q == nil {
		return false
	}
	for _, rg := range q.Spec.ResourceGroups {
		for _, f := range rg.Flavors {
			if !m.isTAS(f.Name) {
				return false
			}
		}
	}
	return true
}

// TASRequested is Kueue's isTASRequested: the workload is placed by
// topology, explicitly or because its ClusterQueue has only TAS flavors.
func (m *Model) TASRequested(cq string, t TopologyRequest) bool {
	return t.Explicit || m.TASOnly(cq)
}

// isTAS reports whether Kueue holds the flavor as a TAS flavor: it names a
// Topology the tree has.
func (m *Model) isTAS(flavor string) bool {
	f, ok := m.Flavors[flavor]
	if !ok || f.TopologyName == nil {
		return false
	}
	_, ok = m.Topologies[*f.TopologyName]
	return ok
}

// tasMismatch is Kueue's checkPodSetAndFlavorMatchForTAS
// (pkg/scheduler/flavorassigner/tas_flavorassigner.go), which the flavor
// assigner runs before taints and node affinity: why the flavor cannot
// take the workload for topology, or "".
func (m *Model) tasMismatch(cq string, t TopologyRequest, flavor string, covered []corev1.ResourceName, total map[corev1.ResourceName]int64) string {
	f := m.Flavors[flavor]
	if m.TASRequested(cq, t) {
		if !t.Explicit {
			return "" // a TAS-only ClusterQueue: every flavor serves it
		}
		if f.TopologyName == nil {
			// A flavor that covers none of the pod's resources may still
			// give quota-only resources beside the TAS flavor.
			if !slices.ContainsFunc(covered, func(r corev1.ResourceName) bool { _, ok := total[r]; return ok }) {
				return ""
			}
			return fmt.Sprintf("Flavor %q does not support TopologyAwareScheduling", flavor)
		}
		levels, ok := m.Topologies[*f.TopologyName]
		if !ok {
			return fmt.Sprintf("Flavor %q information missing in TAS cache", flavor)
		}
		// An unconstrained request asks for the lowest level, which
		// every Topology has.
		if t.Level != "" && !slices.Contains(levels, t.Level) {
			return fmt.Sprintf("Flavor %q does not contain the requested level", flavor)
		}
		// HasLevel asks the same of a slice's level.
		if t.SliceSize > 0 && !slices.Contains(levels, t.SliceLevel) {
			return fmt.Sprintf("Flavor %q does not contain the requested level", flavor)
		}
		return ""
	}
	if f.TopologyName != nil {
		return fmt.Sprintf("Flavor %q supports only TopologyAwareScheduling", flavor)
	}
	return ""
}
