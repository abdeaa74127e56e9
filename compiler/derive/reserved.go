package derive

import (
	"strconv"

	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// Reservations are the pool's capacity reservations as the provisioners
// record them (keys.AnnotationReserved).
func (p Pool) Reservations() []nodes.Reservation {
	out := make([]nodes.Reservation, len(p.Spec.Reserved))
	for i, r := range p.Spec.Reserved {
		out[i] = nodes.Reservation{
			Selector: Selector(r), Block: r.IsBlock(), InstanceType: r.InstanceType,
			Zone: r.Zone, Count: r.Count, Start: r.Start, End: r.End,
		}
		if r.Price != nil {
			out[i].Price = strconv.FormatFloat(*r.Price, 'f', -1, 64)
		}
	}
	return out
}

// Selector is a reservation's ID, or its tags as "tags:k=v,…" by key.
func Selector(r spec.Reservation) string {
	if r.ID != "" {
		return r.ID
	}
	return nodes.TagSelector(r.Tags)
}
