package spec

import "time"

// Reservation is one EC2 capacity reservation a pool launches into: an
// On-Demand Capacity Reservation or a Capacity Block for ML, selected by
// its ID or by its tags, as Karpenter's capacityReservationSelectorTerms
// select them (karpenter-provider-aws v1.15.1 pkg/apis/v1/ec2nodeclass.go).
type Reservation struct {
	// ID is the reservation's EC2 ID, "cr-…".
	ID string `json:"id,omitempty"`
	// Tags select the reservations carrying all of them (Karpenter pools
	// only: eksctl and Terraform target one ID).
	Tags map[string]string `json:"tags,omitempty"`
	// Type is "odcr" or "capacity-block".
	Type         string `json:"type"`
	InstanceType string `json:"instanceType"`
	Zone         string `json:"zone"`
	// Count is how many instances the reservation holds.
	Count int32 `json:"count"`
	// Start and End bound a Capacity Block (RFC 3339). They are data:
	// nothing in a build reads them against the clock.
	Start string `json:"start,omitempty"`
	End   string `json:"end,omitempty"`
	// InstanceMatchCriteria is an ODCR's "open" or "targeted" (a block is
	// always targeted).
	InstanceMatchCriteria string `json:"instanceMatchCriteria,omitempty"`
	// Price is a Capacity Block's price per instance-hour as bought (USD),
	// which no catalog has; an ODCR is billed at the on-demand rate.
	Price *float64 `json:"price,omitempty"`
	// WhenExhausted is "none" or "on-demand": whether the pool launches
	// on-demand instances once the reservation is full.
	WhenExhausted string `json:"whenExhausted,omitempty"`
}

// Reservation types and what a pool does once they are full.
const (
	ODCR          = "odcr"
	CapacityBlock = "capacity-block"
	ExhaustedNone = "none"
)

// IsBlock reports whether r is a Capacity Block.
func (r Reservation) IsBlock() bool { return r.Type == CapacityBlock }

// Window is a block's start and end, parsed; ok is false when either is
// missing or malformed (validation refuses that first).
func (r Reservation) Window() (start, end time.Time, ok bool) {
	s, err1 := time.Parse(time.RFC3339, r.Start)
	e, err2 := time.Parse(time.RFC3339, r.End)
	return s, e, err1 == nil && err2 == nil
}

// IsReserved reports whether the pool launches into capacity reservations.
func (p Pool) IsReserved() bool { return len(p.Reserved) > 0 }

// FallsBack reports whether the pool launches on-demand instances once its
// reservations are full (validation holds its reservations to one answer).
func (p Pool) FallsBack() bool {
	return len(p.Reserved) > 0 && p.Reserved[0].WhenExhausted == OnDemand
}

// ReservedCount is how many instances the pool's reservations hold.
func (p Pool) ReservedCount() int32 {
	var n int32
	for _, r := range p.Reserved {
		n += r.Count
	}
	return n
}

// Blocks are the pool's Capacity Blocks.
func (p Pool) Blocks() []Reservation {
	var out []Reservation
	for _, r := range p.Reserved {
		if r.IsBlock() {
			out = append(out, r)
		}
	}
	return out
}
