package catalog

import (
	"fmt"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/spec"
)

// Price is an hourly price in USD and where it comes from.
type Price struct {
	USD float64
	// Source is "spec" for a price the spec gives, else "catalog".
	Source string
}

// PriceTable is a cloud's built-in on-demand prices.
type PriceTable struct {
	// Source names where they come from, for the report.
	Source string
	// Dates is when the source generated each region's prices.
	Dates map[string]string
	// OnDemandUSD is each region's on-demand price per type, USD per hour.
	OnDemandUSD map[string]map[string]float64
}

// Regions lists the regions the table covers, sorted.
func (t *PriceTable) Regions() []string { return spec.Keys(t.OnDemandUSD) }

// Has reports whether the table has on-demand prices for region.
func (t *PriceTable) Has(region string) bool { _, ok := t.OnDemandUSD[region]; return ok }

// Prices are a fleet's hourly prices: on-demand from the cloud's table
// for the spec's prices.region or else the cluster's region, under the
// spec's own prices per instance type; spot prices only from the spec. A
// price neither gives is unknown, never guessed from another region or
// capacity type.
type Prices struct {
	// Region is the region whose built-in on-demand prices apply.
	Region string
	table  *PriceTable
	over   map[string]spec.InstancePrice
}

// NewPrices resolves a fleet's prices over a cloud's table: p may be nil.
func NewPrices(t *PriceTable, clusterRegion string, p *spec.Prices) Prices {
	out := Prices{Region: clusterRegion, table: t}
	if p != nil {
		if p.Region != "" {
			out.Region = p.Region
		}
		out.over = p.InstanceTypes
	}
	return out
}

// Source describes where the on-demand prices come from, for the report.
func (p Prices) Source() string {
	if d, ok := p.table.Dates[p.Region]; ok {
		return fmt.Sprintf("%s, %s, generated %s", p.table.Source, p.Region, d)
	}
	return fmt.Sprintf("none built in for %s (%s covers %s)", p.Region, p.table.Source, strings.Join(p.table.Regions(), ", "))
}

// Hourly is an instance type's hourly price on spot or on-demand
// capacity, or an error that says why it is unknown.
func (p Prices) Hourly(instanceType string, spot bool) (Price, error) {
	o := p.over[instanceType]
	if spot {
		if o.Spot != nil {
			return Price{USD: *o.Spot, Source: "spec"}, nil
		}
		return Price{}, fmt.Errorf("no spot price for %s: spot prices come only from the spec (prices.instanceTypes.%q.spot)", instanceType, instanceType)
	}
	if o.OnDemand != nil {
		return Price{USD: *o.OnDemand, Source: "spec"}, nil
	}
	table, ok := p.table.OnDemandUSD[p.Region]
	if !ok {
		return Price{}, fmt.Errorf("no on-demand price for %s: the built-in prices (%s) cover %s, not %s; set prices.region or prices.instanceTypes.%q.onDemand", instanceType, p.table.Source, strings.Join(p.table.Regions(), ", "), p.Region, instanceType)
	}
	usd, ok := table[instanceType]
	if !ok {
		return Price{}, fmt.Errorf("no on-demand price for %s in %s; set prices.instanceTypes.%q.onDemand", instanceType, p.Region, instanceType)
	}
	return Price{USD: usd, Source: "catalog"}, nil
}
