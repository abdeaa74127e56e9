package karpenter

import (
	"fmt"
	"slices"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	wire "github.com/gpufleet/gpufleet/compiler/wire/karpenter"
)

// capacityTypes reads a NodePool's karpenter.sh/capacity-type values: one
// type, or "reserved" with "on-demand" for a reserved pool that falls
// back. Karpenter labels each node with the one it launched as, so the
// label is the group's own only when there is one.
func capacityTypes(g *nodes.Group, values []string) error {
	switch {
	case len(values) == 1:
		g.Spot = values[0] == wire.CapacitySpot
		g.OwnLabels[wire.LabelKarpenterCapacity] = values[0]
	case len(values) == 2 && slices.Contains(values, wire.CapacityReserved) && slices.Contains(values, wire.CapacityOnDemand):
		g.FallsBack = true
	default:
		return fmt.Errorf("want one capacity type, or %q with %q, got %v", wire.CapacityReserved, wire.CapacityOnDemand, values)
	}
	return nil
}

// reservations reads a NodePool's reservations as its annotation records
// them, holding the record to what Karpenter reads: capacity type
// "reserved" exactly when there are some, and the EC2NodeClass's selector
// terms selecting each.
func reservations(np wire.NodePool, capacities []string, terms []wire.CapacityReservationSelectorTerm) ([]nodes.Reservation, error) {
	rs, err := nodes.ParseReservations(np.Annotations[keys.AnnotationReserved])
	if err != nil {
		return nil, fmt.Errorf("annotation %s: %w", keys.AnnotationReserved, err)
	}
	if slices.Contains(capacities, wire.CapacityReserved) != (len(rs) > 0) {
		return nil, fmt.Errorf("capacity type %q and annotation %s disagree on whether it launches into reservations", wire.CapacityReserved, keys.AnnotationReserved)
	}
	if len(rs) != len(terms) {
		return nil, fmt.Errorf("annotation %s records %d reservations, its EC2NodeClass selects %d", keys.AnnotationReserved, len(rs), len(terms))
	}
	for i, r := range rs {
		if sel := selector(terms[i]); sel != r.Selector {
			return nil, fmt.Errorf("annotation %s records reservation %s where its EC2NodeClass selects %s", keys.AnnotationReserved, r.Selector, sel)
		}
	}
	return rs, nil
}

// selector spells a term as the record does (derive.Selector).
func selector(t wire.CapacityReservationSelectorTerm) string {
	if t.ID != "" {
		return t.ID
	}
	return nodes.TagSelector(t.Tags)
}
