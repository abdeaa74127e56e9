// Package pricelist reads the AWS CLI's price output, as
// karpenter-provider-aws v1.15.1's pricing provider reads the same API
// responses (pkg/providers/pricing/pricing.go: fetchOnDemandPricing's
// filters, onDemandPage, UpdateSpotPricing's product descriptions,
// spotPage). `gpufleet prices` turns them into a prices file the spec
// unifies with.
package pricelist

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// PriceList is what the two price calls gave: on-demand and spot USD per
// hour by instance type, in one region.
type PriceList struct {
	Region   string
	OnDemand map[string]float64
	Spot     map[string]float64
	// SpotZones is how many zones each spot price was the dearest of.
	SpotZones map[string]int
}

// priceProduct is the part of a Price List API product that Karpenter's
// onDemandPage reads, with the attributes its filters match.
type priceProduct struct {
	Product struct {
		ProductFamily string            `json:"productFamily"`
		Attributes    map[string]string `json:"attributes"`
	} `json:"product"`
	Terms struct {
		OnDemand map[string]struct {
			PriceDimensions map[string]struct {
				PricePerUnit map[string]string `json:"pricePerUnit"`
			} `json:"priceDimensions"`
		} `json:"OnDemand"`
	} `json:"terms"`
}

// onDemandFilters are fetchOnDemandPricing's TERM_MATCH filters on a
// product's attributes (regionCode is checked against the region): a
// product whose attribute differs is not a Linux on-demand instance hour.
// Older records lack some attributes; a missing one does not exclude.
var onDemandFilters = map[string]string{
	"servicecode":     "AmazonEC2",
	"preInstalledSw":  "NA",
	"operatingSystem": "Linux",
	"capacitystatus":  "Used",
	"marketoption":    "OnDemand",
}

// ReadProducts adds the on-demand prices of `aws pricing get-products
// --service-code AmazonEC2` output ({"PriceList": ["<product JSON>", …]},
// each entry a JSON string as the API returns it) or of one product
// object, in Karpenter's way: USD per hour of each on-demand term, a zero
// price skipped. Products of another region, OS, tenancy or capacity
// status are skipped as Karpenter's filters skip them; two different
// prices left for one type are an error, since the file would be
// ambiguous.
func (l *PriceList) ReadProducts(data []byte) error {
	var page struct {
		PriceList []json.RawMessage `json:"PriceList"`
	}
	if err := json.Unmarshal(data, &page); err != nil {
		return err
	}
	entries := page.PriceList
	if entries == nil {
		entries = []json.RawMessage{data}
	}
	for i, raw := range entries {
		var p priceProduct
		text := []byte(raw)
		var s string
		if json.Unmarshal(raw, &s) == nil {
			text = []byte(s)
		}
		if err := json.Unmarshal(text, &p); err != nil {
			return fmt.Errorf("PriceList[%d]: %v", i, err)
		}
		a := p.Product.Attributes
		it := a["instanceType"]
		if it == "" || !l.onDemandProduct(p) {
			continue
		}
		for _, term := range slices.Sorted(maps.Keys(p.Terms.OnDemand)) {
			dims := p.Terms.OnDemand[term].PriceDimensions
			for _, d := range slices.Sorted(maps.Keys(dims)) {
				usd, err := strconv.ParseFloat(dims[d].PricePerUnit["USD"], 64)
				if err != nil || usd == 0 {
					continue
				}
				if old, ok := l.OnDemand[it]; ok && old != usd {
					return fmt.Errorf("PriceList[%d]: %s has two on-demand prices, %v and %v: filter the get-products call to one tenancy and OS (as Karpenter's filters do)", i, it, old, usd)
				}
				l.OnDemand[it] = usd
			}
		}
	}
	return nil
}

func (l *PriceList) onDemandProduct(p priceProduct) bool {
	a := p.Product.Attributes
	if rc, ok := a["regionCode"]; ok && rc != l.Region {
		return false
	}
	for k, want := range onDemandFilters {
		if v, ok := a[k]; ok && v != want {
			return false
		}
	}
	// Karpenter's two calls: shared tenancy, and dedicated bare metal.
	switch t := a["tenancy"]; {
	case t == "" || t == "Shared":
		return p.Product.ProductFamily == "" || p.Product.ProductFamily == "Compute Instance"
	case t == "Dedicated":
		return p.Product.ProductFamily == "Compute Instance (bare metal)"
	}
	return false
}

// spotDescriptions are the product descriptions UpdateSpotPricing asks for.
var spotDescriptions = []string{"Linux/UNIX", "Linux/UNIX (Amazon VPC)"}

// ReadSpotHistory adds the spot prices of `aws ec2
// describe-spot-price-history` output ({"SpotPriceHistory": [...]}):
// the latest record per type and zone of the region (Karpenter asks for
// the prices at now, so keeps one per zone), Linux only; the spec takes
// one spot price per type, so each type gets its dearest zone's, which no
// zone of its pools exceeds.
func (l *PriceList) ReadSpotHistory(data []byte) error {
	var page struct {
		SpotPriceHistory *[]struct {
			AvailabilityZone, InstanceType, ProductDescription, SpotPrice string
			Timestamp                                                     *time.Time
		}
	}
	if err := json.Unmarshal(data, &page); err != nil {
		return err
	}
	if page.SpotPriceHistory == nil {
		return fmt.Errorf("no SpotPriceHistory: not describe-spot-price-history output")
	}
	type latest struct {
		at  time.Time
		usd float64
	}
	zones := map[string]map[string]latest{}
	for i, r := range *page.SpotPriceHistory {
		usd, err := strconv.ParseFloat(r.SpotPrice, 64)
		if err != nil || r.Timestamp == nil || r.InstanceType == "" {
			return fmt.Errorf("SpotPriceHistory[%d]: a record without an instance type, a price or a timestamp", i)
		}
		if !strings.HasPrefix(r.AvailabilityZone, l.Region) || !slices.Contains(spotDescriptions, r.ProductDescription) {
			continue
		}
		if zones[r.InstanceType] == nil {
			zones[r.InstanceType] = map[string]latest{}
		}
		if old, ok := zones[r.InstanceType][r.AvailabilityZone]; !ok || r.Timestamp.After(old.at) {
			zones[r.InstanceType][r.AvailabilityZone] = latest{*r.Timestamp, usd}
		}
	}
	for it, byZone := range zones {
		for _, z := range byZone {
			if z.usd > l.Spot[it] {
				l.Spot[it] = z.usd
			}
		}
		l.SpotZones[it] = len(byZone)
	}
	return nil
}

// New is an empty list for region.
func New(region string) *PriceList {
	return &PriceList{Region: region, OnDemand: map[string]float64{}, Spot: map[string]float64{}, SpotZones: map[string]int{}}
}

// Types are the instance types with a price, sorted.
func (l *PriceList) Types() []string {
	seen := map[string]bool{}
	for k := range l.OnDemand {
		seen[k] = true
	}
	for k := range l.Spot {
		seen[k] = true
	}
	return slices.Sorted(maps.Keys(seen))
}
