package aws

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

func TestHourly(t *testing.T) {
	usd := func(f float64) *float64 { return &f }
	over := &spec.Prices{InstanceTypes: map[string]spec.InstancePrice{
		"p5.48xlarge":  {Spot: usd(30)},
		"g6.xlarge":    {OnDemand: usd(0.9)},
		"p5e.48xlarge": {OnDemand: usd(70), Spot: usd(40)},
	}}
	for _, tc := range []struct {
		name    string
		region  string
		prices  *spec.Prices
		it      string
		spot    bool
		want    catalog.Price
		unknown string // the error's text, when unknown
	}{
		{"built-in on-demand", "us-east-1", nil, "p5.48xlarge", false, catalog.Price{USD: 55.04, Source: "catalog"}, ""},
		{"built-in govcloud", "us-gov-west-1", nil, "p5.48xlarge", false, catalog.Price{USD: 66.048, Source: "catalog"}, ""},
		{"spot without a spec price", "us-east-1", nil, "p5.48xlarge", true, catalog.Price{}, "spot prices come only from the spec"},
		{"spot from the spec", "us-east-1", over, "p5.48xlarge", true, catalog.Price{USD: 30, Source: "spec"}, ""},
		{"spec on-demand over the catalog", "us-east-1", over, "g6.xlarge", false, catalog.Price{USD: 0.9, Source: "spec"}, ""},
		{"a region the table lacks", "us-west-2", nil, "p5.48xlarge", false, catalog.Price{}, "cover us-east-1, us-gov-east-1, us-gov-west-1, not us-west-2"},
		{"prices.region picks the table", "us-west-2", &spec.Prices{Region: "us-east-1"}, "m7i.large", false, catalog.Price{USD: 0.1008, Source: "catalog"}, ""},
		{"a spec price in a region the table lacks", "eu-west-1", over, "g6.xlarge", false, catalog.Price{USD: 0.9, Source: "spec"}, ""},
		{"a type the region lacks", "us-east-1", nil, "p5e.48xlarge", false, catalog.Price{}, "no on-demand price for p5e.48xlarge in us-east-1"},
		{"a type the region lacks, priced in the spec", "us-east-1", over, "p5e.48xlarge", false, catalog.Price{USD: 70, Source: "spec"}, ""},
		{"a spec-only type", "us-east-1", nil, "x9.huge", false, catalog.Price{}, "no on-demand price for x9.huge in us-east-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := catalog.NewPrices(&prices, tc.region, tc.prices).Hourly(tc.it, tc.spot)
			if tc.unknown != "" {
				if err == nil || !strings.Contains(err.Error(), tc.unknown) {
					t.Fatalf("Hourly = %v, %v; want unknown: %s", got, err, tc.unknown)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Hourly = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// Every built-in type but p5e.48xlarge (sold only as capacity blocks) has
// a us-east-1 on-demand price.
func TestPricesCoverCatalog(t *testing.T) {
	for _, r := range builtin {
		if _, ok := onDemandUSD["us-east-1"][r.Name]; !ok && r.Name != "p5e.48xlarge" {
			t.Errorf("%s has no us-east-1 price", r.Name)
		}
	}
	if got := catalog.NewPrices(&prices, "us-west-2", nil).Source(); !strings.Contains(got, "none built in for us-west-2") {
		t.Errorf("Source = %q", got)
	}
	if got := catalog.NewPrices(&prices, "us-east-1", nil).Source(); got != "karpenter-provider-aws v1.15.1 (pkg/providers/pricing), us-east-1, generated 2026-07-20" {
		t.Errorf("Source = %q", got)
	}
}

// Unpriced is what Karpenter's static prices lack: judged only for
// built-in types in a region the table covers.
func TestUnpriced(t *testing.T) {
	for _, tc := range []struct {
		region, it string
		want       bool
	}{
		{"us-east-1", "p5e.48xlarge", true}, // capacity blocks only
		{"us-east-1", "p5en.48xlarge", false},
		{"us-gov-west-1", "p5.48xlarge", false},
		{"us-west-2", "p5e.48xlarge", false}, // not covered: Karpenter fetches live prices
		{"us-east-1", "x9.huge", false},      // the spec's own type: the table never holds it
	} {
		if got := Unpriced(tc.region, tc.it); got != tc.want {
			t.Errorf("Unpriced(%s, %s) = %v, want %v", tc.region, tc.it, got, tc.want)
		}
	}
}
