package cost

import (
	"strconv"
	"time"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// Reserved is one capacity reservation: paid for while it is active
// whether instances run in it or not. Used are the instances the classes
// landing on its pool take of it (each class's workload on the pool, as
// Classes sizes it, filling the pool's reservations of its type in
// order), Stranded the rest. A Capacity Block is priced at its own price
// (the spec's, as bought), an ODCR at its type's on-demand rate, which EC2
// bills it at; Unknown says why a price is missing. End is data: the
// report never compares it with the clock.
type Reserved struct {
	Pool         string   `json:"pool"`
	Reservation  string   `json:"reservation"`
	Block        bool     `json:"block"`
	InstanceType string   `json:"instanceType"`
	Zone         string   `json:"zone"`
	Instances    int64    `json:"instances"`
	GPUs         int64    `json:"gpus"`
	Used         int64    `json:"used"`
	Stranded     int64    `json:"stranded"`
	Start        string   `json:"start,omitempty"`
	End          string   `json:"end,omitempty"`
	NodeHourly   *float64 `json:"nodeHourly"`
	Hourly       *float64 `json:"hourly"`
	Monthly      *float64 `json:"monthly"`
	// Term is a block's whole price, start to end.
	Term        *float64 `json:"term,omitempty"`
	PriceSource string   `json:"priceSource,omitempty"`
	Unknown     string   `json:"unknown,omitempty"`
}

// reserved prices each pool's reservations, in pool order.
func reserved(cl *sched.Cluster, classes []ClassCost, prices catalog.Prices) []Reserved {
	out := []Reserved{}
	for i := range cl.Pools {
		p := &cl.Pools[i]
		if len(p.Reserved) == 0 {
			continue
		}
		want := map[string]int64{} // nodes the classes landing here take, by type
		for _, cc := range classes {
			if cc.Pool == p.Name {
				want[cc.Type] += cc.Nodes
			}
		}
		instances, gpus := p.ReservedGPUs()
		for _, r := range p.Reserved {
			n := int64(r.Count)
			rc := Reserved{Pool: p.Name, Reservation: r.Selector, Block: r.Block, InstanceType: r.InstanceType, Zone: r.Zone, Instances: n, Start: r.Start, End: r.End}
			if instances > 0 {
				rc.GPUs = gpus * n / instances
			}
			rc.Used = min(n, want[r.InstanceType])
			want[r.InstanceType] -= rc.Used
			rc.Stranded = n - rc.Used
			price(&rc, r.Price, prices)
			out = append(out, rc)
		}
	}
	return out
}

// price sets a reservation's prices: a block's own, else the on-demand
// rate.
func price(rc *Reserved, own string, prices catalog.Prices) {
	var hourly float64
	switch {
	case own != "":
		f, err := strconv.ParseFloat(own, 64)
		if err != nil {
			rc.Unknown = "price " + own + " is not a number"
			return
		}
		hourly, rc.PriceSource = f, "spec"
	case rc.Block:
		rc.Unknown = "a Capacity Block's price is set when it is bought: give it as the reservation's price"
		return
	default:
		p, err := prices.Hourly(rc.InstanceType, false)
		if err != nil {
			rc.Unknown = err.Error()
			return
		}
		hourly, rc.PriceSource = p.USD, p.Source
	}
	rc.NodeHourly = usd(hourly)
	rc.Hourly = usd(hourly * float64(rc.Instances))
	rc.Monthly = usd(hourly * float64(rc.Instances) * HoursPerMonth)
	start, err1 := time.Parse(time.RFC3339, rc.Start)
	end, err2 := time.Parse(time.RFC3339, rc.End)
	if rc.Block && err1 == nil && err2 == nil {
		rc.Term = usd(hourly * float64(rc.Instances) * end.Sub(start).Hours())
	}
}
