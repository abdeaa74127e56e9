package plan

import (
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
