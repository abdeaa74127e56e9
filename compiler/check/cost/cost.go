// Package cost prices a checked cluster's classes and tenants by the hour
// and finds the GPUs its pools strand (Costs).
package cost

import (
	"math"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// Cost is what the fleet's classes and tenants cost by the hour, and the
// GPUs its pools strand. Prices are USD per hour; a price the catalog and
// the spec do not give is null, with the reason in Unknown.
type Cost struct {
	// Region is the region whose built-in on-demand prices apply, and
	// Source where they come from.
	Region string `json:"region"`
	Source string `json:"source"`
	// Classes: each class on each pool it lands on, as if that pool ran
	// its whole workload; by class, then pool.
	Classes []ClassCost `json:"classes"`
	// Tenants: each tenant's nominal quota at full use; by tenant.
	Tenants []TenantCost `json:"tenants"`
	// Stranded: each GPU pool's instance types and the GPUs their nodes
	// hold that no packing of the classes landing there can use; by pool,
	// then type and resource.
	Stranded []Stranded `json:"stranded"`
	// Pools: each pool at max size, in the report's pool order; Fleet,
	// all of them.
	Pools []PoolCost `json:"pools"`
	Fleet *FleetCost `json:"fleet"`
	// Reserved: each pool's capacity reservations, paid for used or not
	// (reserved.go); by pool, in the pools' order.
	Reserved []Reserved `json:"reserved,omitempty"`
}

// ClassCost is a class's workload on one pool it lands on.
type ClassCost struct {
	Class string `json:"class"`
	Pool  string `json:"pool"`
	// Type is the instance type the checker credits the pool with for the
	// class, and Spot whether the pool's capacity is spot.
	Type string `json:"type"`
	Spot bool   `json:"spot"`
	// Pods are the replicas, or the gang, run at once; PodsPerNode how
	// many a node of Type holds (1 under required hostname
	// anti-affinity); Nodes the fewest nodes that hold them (balanced over
	// the pool's zones under a required zone spread).
	Pods        int64 `json:"pods"`
	PodsPerNode int64 `json:"podsPerNode"`
	Nodes       int64 `json:"nodes"`
	// NodeHourly is the price of a node of Type, Hourly that of Nodes of
	// them; PriceSource is "catalog" or "spec".
	NodeHourly  *float64 `json:"nodeHourly"`
	Hourly      *float64 `json:"hourly"`
	PriceSource string   `json:"priceSource,omitempty"`
	Unknown     string   `json:"unknown,omitempty"`
}

// TenantCost is a tenant's nominal quota of one resource (nvidia.com/gpu,
// or cpu for a tenant without GPU quota) at full use. Where its classes
// land on several pools, what that costs depends on which run: Low prices
// the whole quota at the cheapest unit among those pools, High at the
// dearest. A unit's price is a node's over what the node advertises of the
// resource (a GPU node's CPUs and memory come with its GPUs; a shared GPU's
// replicas are units, as the quota counts them). Both assume the quota
// packs whole nodes. Unknown says why a pool's price is left out, or why
// there is no figure at all.
type TenantCost struct {
	Tenant   string       `json:"tenant"`
	Resource string       `json:"resource,omitempty"`
	Quota    float64      `json:"quota"`
	Low      *TenantPrice `json:"low"`
	High     *TenantPrice `json:"high"`
	Unknown  string       `json:"unknown,omitempty"`
}

// TenantPrice is a tenant's quota priced at one pool's unit.
type TenantPrice struct {
	Pool        string   `json:"pool"`
	Type        string   `json:"type"`
	UnitHourly  *float64 `json:"unitHourly"`
	Hourly      *float64 `json:"hourly"`
	PriceSource string   `json:"priceSource"`
}

// Stranded is one GPU resource on the nodes of one of a pool's instance
// types: PerNode units each node has (GPUs, time-sliced or MPS replicas, or
// MIG slices), Usable the most of them the classes landing on the pool can
// use on one node at once, and Stranded the rest, on each of the pool's
// Nodes at max size.
//
// Usable is the best packing of the classes' requests of the resource,
// each class at most as many pods as fit a node by every other resource
// too (PodsPerNode); classes are packed by the resource alone, so Usable
// may be more than any real mix reaches, never less: the GPUs Stranded
// counts are never usable. With one class of g GPUs on a node of G,
// Stranded is G mod g (or more, when CPU or memory fit fewer pods); a pool
// no GPU class lands on strands every GPU.
type Stranded struct {
	Pool     string   `json:"pool"`
	Type     string   `json:"type"`
	Resource string   `json:"resource"`
	PerNode  int64    `json:"perNode"`
	Usable   int64    `json:"usable"`
	Stranded int64    `json:"stranded"`
	Nodes    int64    `json:"nodes"`
	Classes  []string `json:"classes"`
}

// Tenant is what a tenant's cost is priced from.
type Tenant struct {
	Name    string
	Classes []string
	// Nominal is its nominal quota by resource name, in milli-units.
	Nominal map[string]int64
}

// Costs prices the classes and tenants of the cluster and its rows (the
// report's, in class order) and finds stranded GPUs.
func Costs(cl *sched.Cluster, rows []sched.Row, tenants []Tenant, prices catalog.Prices) *Cost {
	c := &Cost{Region: prices.Region, Source: prices.Source(), Classes: []ClassCost{}, Tenants: []TenantCost{}, Stranded: []Stranded{}}
	pools := map[string]*sched.Pool{}
	for i := range cl.Pools {
		pools[cl.Pools[i].Name] = &cl.Pools[i]
	}
	classes := make(map[string]*sched.Class, len(cl.Classes))
	for i := range cl.Classes {
		classes[cl.Classes[i].Name] = &cl.Classes[i]
	}
	// The cells that fit, by class and by pool: a big fleet has millions
	// of class × pool pairs, and few fit, all of them evaluated.
	byClass, byPool := map[string][]*sched.Cell{}, map[string][]*sched.Class{}
	for i := range rows {
		for k := range rows[i].Evaluated {
			cell := &rows[i].Evaluated[k]
			class := classes[cell.Class]
			if !cell.Fits || cell.Type == "" || class == nil || pools[cell.Pool] == nil {
				continue
			}
			byClass[cell.Class] = append(byClass[cell.Class], cell)
			byPool[cell.Pool] = append(byPool[cell.Pool], class)
			c.Classes = append(c.Classes, classCost(class, cell, pools[cell.Pool], prices))
		}
	}
	sort.Slice(c.Classes, func(i, j int) bool {
		a, b := c.Classes[i], c.Classes[j]
		return a.Class < b.Class || a.Class == b.Class && a.Pool < b.Pool
	})
	for _, t := range tenants {
		c.Tenants = append(c.Tenants, tenantCost(t, byClass, pools, prices))
	}
	sort.Slice(c.Tenants, func(i, j int) bool { return c.Tenants[i].Tenant < c.Tenants[j].Tenant })
	for i := range cl.Pools {
		c.Stranded = append(c.Stranded, stranded(&cl.Pools[i], byPool[cl.Pools[i].Name])...)
	}
	sort.SliceStable(c.Stranded, func(i, j int) bool { return c.Stranded[i].Pool < c.Stranded[j].Pool })
	c.Pools, c.Fleet = poolCosts(cl, prices)
	if r := reserved(cl, c.Classes, prices); len(r) > 0 {
		c.Reserved = r
	}
	return c
}

func classCost(class *sched.Class, cell *sched.Cell, p *sched.Pool, prices catalog.Prices) ClassCost {
	cc := ClassCost{Class: class.Name, Pool: cell.Pool, Type: cell.Type, Spot: p.Spot, Pods: int64(class.Pods)}
	var zones []int64 // nodes a zone may take pods on
	for _, z := range cell.Zones {
		if z.PodsPerNode > 0 && z.Nodes > 0 {
			cc.PodsPerNode = max(cc.PodsPerNode, z.PodsPerNode)
			zones = append(zones, z.Nodes)
		}
	}
	if cc.PodsPerNode == 0 {
		return cc
	}
	if sched.SelfAntiAffinity(class, keys.LabelHostname) {
		cc.PodsPerNode = 1
	}
	cc.Nodes = NodesFor(cc.Pods, cc.PodsPerNode, len(zones), zoneSpread(class))
	price, err := prices.Hourly(cell.Type, p.Spot)
	if err != nil {
		cc.Unknown = err.Error()
		return cc
	}
	cc.NodeHourly, cc.Hourly, cc.PriceSource = usd(price.USD), usd(price.USD*float64(cc.Nodes)), price.Source
	return cc
}

// NodesFor is the fewest nodes that hold pods at perNode each: over zones
// zones balanced (as a required zone spread of maxSkew 1 places them),
// when spread, else packed.
func NodesFor(pods, perNode int64, zones int, spread bool) int64 {
	if perNode <= 0 {
		return 0
	}
	if !spread || zones < 2 {
		return ceilDiv(pods, perNode)
	}
	z := int64(zones)
	var n int64
	for i := range z {
		in := pods / z
		if i < pods%z {
			in++
		}
		n += ceilDiv(in, perNode)
	}
	return n
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// usd rounds to a millionth of a dollar, the table's precision, so that a
// product of prices prints the same everywhere.
func usd(f float64) *float64 {
	r := math.Round(f*1e6) / 1e6
	return &r
}

// zoneSpread reports whether the class has a required zone spread.
func zoneSpread(c *sched.Class) bool {
	for _, tsc := range sched.HardSpreads(c) {
		if tsc.TopologyKey == keys.LabelZone {
			return true
		}
	}
	return false
}

func tenantCost(t Tenant, byClass map[string][]*sched.Cell, pools map[string]*sched.Pool, prices catalog.Prices) TenantCost {
	tc := TenantCost{Tenant: t.Name}
	res, cpuOnly := keys.ResourceGPU, false
	milli := t.Nominal[keys.ResourceGPU]
	if milli <= 0 {
		res, cpuOnly, milli = string(corev1.ResourceCPU), true, t.Nominal[string(corev1.ResourceCPU)]
	}
	if milli <= 0 {
		tc.Unknown = "no nominal GPU or CPU quota"
		return tc
	}
	tc.Resource, tc.Quota = res, float64(milli)/1000
	var why string
	var low, high *TenantPrice
	unit := map[*TenantPrice]float64{}
	for _, class := range t.Classes {
		for _, cell := range byClass[class] {
			name, p := cell.Pool, pools[cell.Pool]
			n := nodeOf(p, cell.Type)
			if n == nil || cpuOnly && gpuUnits(n.Status.Capacity) > 0 {
				continue
			}
			q := n.Status.Allocatable[corev1.ResourceName(res)]
			if q.MilliValue() <= 0 {
				continue
			}
			price, err := prices.Hourly(cell.Type, p.Spot)
			if err != nil {
				if why == "" {
					why = err.Error()
				}
				continue
			}
			tp := &TenantPrice{Pool: name, Type: cell.Type, PriceSource: price.Source}
			unit[tp] = price.USD * 1000 / float64(q.MilliValue())
			// Ties go to the first pool by name, whatever the order of
			// the tenant's classes.
			u := unit[tp]
			if low == nil || u < unit[low] || u == unit[low] && name < low.Pool {
				low = tp
			}
			if high == nil || u > unit[high] || u == unit[high] && name < high.Pool {
				high = tp
			}
		}
	}
	tc.Unknown = why
	if low == nil {
		switch {
		case why != "":
		case cpuOnly:
			tc.Unknown = "none of its classes lands on a pool without GPUs"
		default:
			tc.Unknown = "none of its classes lands on a pool with " + res
		}
		return tc
	}
	for _, tp := range []*TenantPrice{low, high} {
		tp.UnitHourly, tp.Hourly = usd(unit[tp]), usd(unit[tp]*tc.Quota)
	}
	tc.Low, tc.High = low, high
	return tc
}

// nodeOf is one of the pool's nodes of an instance type.
func nodeOf(p *sched.Pool, instanceType string) *sched.Node {
	for i := range p.Nodes {
		if p.Nodes[i].InstanceType == instanceType {
			return &p.Nodes[i]
		}
	}
	return nil
}
