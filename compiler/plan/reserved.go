package plan

import (
	"strconv"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check/cost"
)

// ReservationChange is one capacity reservation added, removed or
// changed: what it holds and costs before and after (nil where it was
// not), paid for whether used or not. End is a block's, as data.
type ReservationChange struct {
	Reservation string       `json:"reservation"`
	Pool        string       `json:"pool"`
	Before      *Reservation `json:"before"`
	After       *Reservation `json:"after"`
}

// Reservation is what a plan shows of one.
type Reservation struct {
	Type         string `json:"type"`
	InstanceType string `json:"instanceType"`
	Zone         string `json:"zone"`
	Instances    int64  `json:"instances"`
	End          string `json:"end,omitempty"`
	Hourly       *Range `json:"hourly"`
}

// reservationChanges compares the reports' reservations by pool and
// reservation.
func reservationChanges(before, after *cost.Cost) []ReservationChange {
	b, a := reservations(before), reservations(after)
	var out []ReservationChange
	for _, k := range union(b, a) {
		rb, ra := b[k], a[k]
		if rb != nil && ra != nil && rb.Hourly.money() == ra.Hourly.money() && rb.Type == ra.Type && rb.InstanceType == ra.InstanceType && rb.Zone == ra.Zone && rb.Instances == ra.Instances && rb.End == ra.End {
			continue
		}
		pool, id, _ := strings.Cut(k, "\x00")
		out = append(out, ReservationChange{Reservation: id, Pool: pool, Before: rb, After: ra})
	}
	return out
}

func reservations(c *cost.Cost) map[string]*Reservation {
	out := map[string]*Reservation{}
	if c == nil {
		return out
	}
	for _, r := range c.Reserved {
		typ := "odcr"
		if r.Block {
			typ = "capacity-block"
		}
		h := &Range{Low: r.Hourly, High: r.Hourly, Unknown: r.Unknown}
		out[r.Pool+"\x00"+r.Reservation] = &Reservation{Type: typ, InstanceType: r.InstanceType, Zone: r.Zone, Instances: r.Instances, End: r.End, Hourly: h}
	}
	return out
}

// describe is "reservation cr-… of pool p (capacity-block, 2 ×
// p5.48xlarge in us-east-1a, ends 2026-12-28T11:30:00Z) added: none →
// $62.93/h ($45,937/month), +$62.93/h (+$45,937/month)".
func (c ReservationChange) describe() string {
	verb, r := "changed", c.After
	switch {
	case c.Before == nil:
		verb = "added"
	case c.After == nil:
		verb, r = "removed", c.Before
	}
	what := r.Type + ", " + strconv.FormatInt(r.Instances, 10) + " × " + r.InstanceType + " in " + r.Zone
	if r.End != "" {
		what += ", ends " + r.End
	}
	var before, after *Range
	if c.Before != nil {
		before = c.Before.Hourly
	}
	if c.After != nil {
		after = c.After.Hourly
	}
	return "reservation " + c.Reservation + " of pool " + c.Pool + " (" + what + ") " + verb + ", paid for used or not: " + RangeChange{Before: before, After: after}.describe()
}
