package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/spec"
)

// Price is an hourly price in USD and where it comes from.
type Price struct {
	USD float64
	// Source is "spec" for a price the spec gives, else the catalog's
	// source and region.
	Source string
}

// PriceRegions lists the regions the built-in on-demand prices cover,
// sorted.
func PriceRegions() []string { return spec.Keys(onDemandUSD) }

// HasPrices reports whether the built-in table has on-demand prices for
// region.
func HasPrices(region string) bool { _, ok := onDemandUSD[region]; return ok }

// Unpriced reports whether karpenter-provider-aws's static prices for
// region lack the built-in instanceType. Karpenter makes an offering
// without a price unavailable (offering/base_resolver.go), and seeds its
// spot prices from these, so it never launches the type. False where the
// table does not cover region (Karpenter fetches live prices there), and
// for types the spec adds, which the table never holds; spec prices do
// not count, since Karpenter does not see them.
func Unpriced(region, instanceType string) bool {
	table, ok := onDemandUSD[region]
	if !ok {
		return false
	}
	if _, ok := table[instanceType]; ok {
		return false
	}
	return slices.ContainsFunc(builtin, func(r row) bool { return r.Name == instanceType })
}

// Prices are a fleet's hourly prices: on-demand from the built-in table
// (karpenter-provider-aws's static prices) for the spec's prices.region or
// else the cluster's region, under the spec's own prices per instance type;
// spot prices only from the spec. A price neither gives is unknown, never
// guessed from another region or capacity type.
type Prices struct {
	// Region is the region whose built-in on-demand prices apply.
	Region string
	over   map[string]spec.InstancePrice
}

// NewPrices resolves a fleet's prices: p may be nil.
func NewPrices(clusterRegion string, p *spec.Prices) Prices {
	out := Prices{Region: clusterRegion}
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
	if d, ok := priceDates[p.Region]; ok {
		return fmt.Sprintf("%s, %s, generated %s", priceSource, p.Region, d)
	}
	return fmt.Sprintf("none built in for %s (%s covers %s)", p.Region, priceSource, strings.Join(PriceRegions(), ", "))
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
	table, ok := onDemandUSD[p.Region]
	if !ok {
		return Price{}, fmt.Errorf("no on-demand price for %s: the built-in prices (%s) cover %s, not %s; set prices.region or prices.instanceTypes.%q.onDemand", instanceType, priceSource, strings.Join(PriceRegions(), ", "), p.Region, instanceType)
	}
	usd, ok := table[instanceType]
	if !ok {
		return Price{}, fmt.Errorf("no on-demand price for %s in %s; set prices.instanceTypes.%q.onDemand", instanceType, p.Region, instanceType)
	}
	return Price{USD: usd, Source: "catalog"}, nil
}
