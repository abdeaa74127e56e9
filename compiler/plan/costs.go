package plan

import (
	"fmt"
	"strconv"

	"github.com/gpufleet/gpufleet/compiler/check/cost"
)

func costChange(before, after *Report) CostChange {
	c := CostChange{Classes: []RangeChange{}, Tenants: []RangeChange{}}
	bf, af := fleetRange(before.Cost), fleetRange(after.Cost)
	if !sameRange(bf, af) {
		c.Fleet = &RangeChange{Before: bf, After: af}
	}
	bc, ac := classRanges(before.Cost), classRanges(after.Cost)
	for _, class := range union(bc, ac) {
		if b, a := bc[class], ac[class]; !sameRange(b, a) {
			c.Classes = append(c.Classes, RangeChange{Name: class, Before: b, After: a})
		}
	}
	bt, at := tenantRanges(before.Cost), tenantRanges(after.Cost)
	for _, t := range union(bt, at) {
		if b, a := bt[t], at[t]; !sameRange(b, a) {
			c.Tenants = append(c.Tenants, RangeChange{Name: t, Before: b, After: a})
		}
	}
	c.Reservations = reservationChanges(before.Cost, after.Cost)
	return c
}

// fleetRange is every pool at max size; unknown in a tree whose report
// predates the pools' prices.
func fleetRange(c *cost.Cost) *Range {
	switch {
	case c == nil:
		return nil
	case c.Fleet == nil:
		return &Range{Unknown: "the tree's report has no fleet price (it predates them)"}
	}
	return &Range{Low: c.Fleet.Low, High: c.Fleet.High, Unknown: c.Fleet.Unknown}
}

// classRanges are each class's workload from its cheapest pool to its
// dearest; unknown if any pool it lands on has no price.
func classRanges(c *cost.Cost) map[string]*Range {
	out := map[string]*Range{}
	if c == nil {
		return out
	}
	for _, cc := range c.Classes {
		r := out[cc.Class]
		if r == nil {
			r = &Range{}
			out[cc.Class] = r
		}
		if r.Unknown != "" {
			continue
		}
		if cc.Hourly == nil {
			r.Low, r.High, r.Unknown = nil, nil, cc.Pool+": "+cc.Unknown
			continue
		}
		if r.Low == nil || *cc.Hourly < *r.Low {
			r.Low = cc.Hourly
		}
		if r.High == nil || *cc.Hourly > *r.High {
			r.High = cc.Hourly
		}
	}
	return out
}

func tenantRanges(c *cost.Cost) map[string]*Range {
	out := map[string]*Range{}
	if c == nil {
		return out
	}
	for _, t := range c.Tenants {
		r := &Range{Unknown: t.Unknown}
		if t.Low != nil && t.High != nil {
			r.Low, r.High = t.Low.Hourly, t.High.Hourly
		}
		if r.Low == nil && r.Unknown == "" {
			r.Unknown = "no price"
		}
		out[t.Tenant] = r
	}
	return out
}

// sameRange compares prices as a plan shows them, to the cent: a reason
// for an unknown price that changed wording, or a fraction of a cent, is
// no change to a reviewer.
func sameRange(a, b *Range) bool { return a.money() == b.money() }

// HoursPerMonth is the month a budget is priced in (cost.HoursPerMonth).
const HoursPerMonth = cost.HoursPerMonth

// money is a price range per hour: "$1.20/h", "$0.61–$8.97/h",
// "unknown", or "none" where there was nothing to price.
func (r *Range) money() string {
	switch {
	case r == nil:
		return "none"
	case r.Low == nil || r.High == nil:
		return "unknown"
	}
	return span(*r.Low, *r.High, usd) + "/h"
}

// monthly is the range over a month of HoursPerMonth, "" if unknown.
func (r *Range) monthly() string {
	if r == nil || r.Low == nil || r.High == nil {
		return ""
	}
	return span(*r.Low*HoursPerMonth, *r.High*HoursPerMonth, cost.Dollars) + "/month"
}

// span is one figure where low is high, else "low–high".
func span(low, high float64, f func(float64) string) string {
	if f(low) == f(high) {
		return f(low)
	}
	return f(low) + "–" + f(high)
}

func usd(f float64) string { return "$" + strconv.FormatFloat(f, 'f', 2, 64) }

// signed is a change in USD per hour: "+$1.20", "-$0.40".
func signed(f float64) string {
	if f < 0 {
		return "-" + usd(-f)
	}
	return "+" + usd(f)
}

// delta is after less before, low from low and high from high, when both
// are known (nothing before is $0).
func (c RangeChange) delta() (low, high float64, ok bool) {
	known := func(r *Range) bool { return r == nil || r.Low != nil && r.High != nil }
	if !known(c.Before) || !known(c.After) {
		return 0, 0, false
	}
	at := func(r *Range) (float64, float64) {
		if r == nil {
			return 0, 0
		}
		return *r.Low, *r.High
	}
	bl, bh := at(c.Before)
	al, ah := at(c.After)
	return al - bl, ah - bh, true
}

// describe is "before → after (monthly), delta": "none → $0.61–$8.97/h
// ($445–$6,548/month), +$0.61/h at the low end, +$8.97/h at the high
// (+$445, +$6,548 a month)".
func (c RangeChange) describe() string {
	side := func(r *Range) string {
		if m := r.monthly(); m != "" {
			return r.money() + " (" + m + ")"
		}
		return r.money()
	}
	s := side(c.Before) + " → " + side(c.After)
	low, high, ok := c.delta()
	month := func(f float64) string {
		if f < 0 {
			return cost.Dollars(f)
		}
		return "+" + cost.Dollars(f)
	}
	switch {
	case !ok:
	case usd(low) == usd(high):
		s += ", " + signed(low) + "/h (" + month(low*HoursPerMonth) + "/month)"
	default:
		s += fmt.Sprintf(", %s/h at the low end, %s/h at the high (%s, %s a month)", signed(low), signed(high), month(low*HoursPerMonth), month(high*HoursPerMonth))
	}
	return s
}
