package cost

import (
	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// PoolCost is one pool at max size: Nodes nodes, all of its cheapest
// instance type at Low and all of its dearest at High (one type: the
// same), over the types that have a price; Unknown says why one has none.
type PoolCost struct {
	Pool    string     `json:"pool"`
	Spot    bool       `json:"spot"`
	Nodes   int64      `json:"nodes"`
	Low     *PoolPrice `json:"low"`
	High    *PoolPrice `json:"high"`
	Unknown string     `json:"unknown,omitempty"`
}

// PoolPrice is a pool's nodes all of one instance type.
type PoolPrice struct {
	Type        string   `json:"type"`
	NodeHourly  *float64 `json:"nodeHourly"`
	Hourly      *float64 `json:"hourly"`
	PriceSource string   `json:"priceSource"`
}

// FleetCost is every pool at max size, the sum of their Low and High; null
// when any pool's price is unknown, which Unknown names.
type FleetCost struct {
	Low     *float64 `json:"low"`
	High    *float64 `json:"high"`
	Unknown string   `json:"unknown,omitempty"`
}

// poolCosts prices each pool at max size, in the cluster's pool order, and
// the fleet as their sum. A pool with a type that has no price makes the
// fleet's total unknown: a total that silently left nodes out would be
// wrong.
func poolCosts(cl *sched.Cluster, prices catalog.Prices) ([]PoolCost, *FleetCost) {
	out := make([]PoolCost, 0, len(cl.Pools))
	fleet := &FleetCost{}
	var low, high float64
	for i := range cl.Pools {
		p := &cl.Pools[i]
		pc := PoolCost{Pool: p.Name, Spot: p.Spot, Nodes: int64(p.MaxNodes)}
		seen := map[string]bool{}
		var lo, hi float64
		for _, n := range p.Nodes {
			if seen[n.InstanceType] {
				continue
			}
			seen[n.InstanceType] = true
			price, err := prices.Hourly(n.InstanceType, p.Spot)
			if err != nil {
				if pc.Unknown == "" {
					pc.Unknown = err.Error()
				}
				continue
			}
			pp := &PoolPrice{Type: n.InstanceType, NodeHourly: usd(price.USD), Hourly: usd(price.USD * float64(pc.Nodes)), PriceSource: price.Source}
			if pc.Low == nil || price.USD < lo {
				pc.Low, lo = pp, price.USD
			}
			if pc.High == nil || price.USD > hi {
				pc.High, hi = pp, price.USD
			}
		}
		low += lo * float64(pc.Nodes)
		high += hi * float64(pc.Nodes)
		if pc.Unknown != "" && fleet.Unknown == "" {
			fleet.Unknown = p.Name + ": " + pc.Unknown
		}
		out = append(out, pc)
	}
	if fleet.Unknown == "" {
		fleet.Low, fleet.High = usd(low), usd(high)
	}
	return out, fleet
}
