package nodediff

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	"github.com/aws/karpenter-provider-aws/pkg/fake"
	karpricing "github.com/aws/karpenter-provider-aws/pkg/providers/pricing"
	"github.com/samber/lo"

	"github.com/gpufleet/gpufleet/compiler/cloud/aws/pricelist"
)

const recorded = "../../compiler/cloud/aws/pricelist/testdata/"

// karpenterPrices runs Karpenter's own pricing provider (UpdateOnDemandPricing,
// UpdateSpotPricing: onDemandPage and spotPage) on the responses, through
// its fake APIs, and returns its on-demand price and its dearest zone's
// spot price of instanceType.
func karpenterPrices(t *testing.T, products []string, spot []ec2types.SpotPrice, instanceType string, zones []string) (float64, float64) {
	t.Helper()
	ctx := context.Background()
	papi, eapi := &fake.PricingAPI{}, fake.NewEC2API()
	papi.GetProductsBehavior.Output.Set(&pricing.GetProductsOutput{PriceList: products})
	eapi.DescribeSpotPriceHistoryBehavior.Output.Set(&ec2.DescribeSpotPriceHistoryOutput{SpotPriceHistory: spot})
	p := karpricing.NewDefaultProvider(papi, eapi, "us-east-1", false)
	if err := p.UpdateOnDemandPricing(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.UpdateSpotPricing(ctx); err != nil {
		t.Fatal(err)
	}
	od, _ := p.OnDemandPrice(ec2types.InstanceType(instanceType))
	var dearest float64
	for _, z := range zones {
		if s, ok := p.SpotPrice(ec2types.InstanceType(instanceType), z); ok && s > dearest {
			dearest = s
		}
	}
	return od, dearest
}

// TestPriceImportIsKarpenters holds 'gpufleet prices' (compiler/cloud/aws/pricelist)
// to Karpenter's pricing provider on the recorded responses: the
// on-demand price, and the spot price per zone. Karpenter asks for the
// prices at now, one record per zone, so it is given each zone's latest
// record of the recorded history, as pricelist keeps; a pricelist that
// kept the earliest (or the cheapest zone's) disagrees.
func TestPriceImportIsKarpenters(t *testing.T) {
	product, err := os.ReadFile(recorded + "get-products-m5.large.json")
	if err != nil {
		t.Fatal(err)
	}
	history, err := os.ReadFile(recorded + "describe-spot-price-history-m5.large.json")
	if err != nil {
		t.Fatal(err)
	}
	var h ec2.DescribeSpotPriceHistoryOutput
	var raw struct{ SpotPriceHistory []map[string]any }
	if err := json.Unmarshal(history, &raw); err != nil {
		t.Fatal(err)
	}
	latest := map[string]map[string]any{}
	for _, r := range raw.SpotPriceHistory {
		z := r["AvailabilityZone"].(string)
		if l, ok := latest[z]; !ok || r["Timestamp"].(string) > l["Timestamp"].(string) {
			latest[z] = r
		}
	}
	var zones []string
	for z := range latest {
		zones = append(zones, z)
	}
	sort.Strings(zones)
	for _, z := range zones {
		r := latest[z]
		ts, _ := time.Parse(time.RFC3339, r["Timestamp"].(string))
		h.SpotPriceHistory = append(h.SpotPriceHistory, ec2types.SpotPrice{
			AvailabilityZone: lo.ToPtr(z), InstanceType: ec2types.InstanceType(r["InstanceType"].(string)),
			ProductDescription: ec2types.RIProductDescription(r["ProductDescription"].(string)), SpotPrice: lo.ToPtr(r["SpotPrice"].(string)), Timestamp: &ts,
		})
	}
	od, spot := karpenterPrices(t, []string{string(product)}, h.SpotPriceHistory, "m5.large", zones)

	l := pricelist.New("us-east-1")
	if err := l.ReadProducts(product); err != nil {
		t.Fatal(err)
	}
	if err := l.ReadSpotHistory(history); err != nil {
		t.Fatal(err)
	}
	if l.OnDemand["m5.large"] != od || l.Spot["m5.large"] != spot || od == 0 || spot == 0 {
		t.Errorf("m5.large: gpufleet prices on-demand %v, spot %v; Karpenter %v, %v", l.OnDemand["m5.large"], l.Spot["m5.large"], od, spot)
	}
	t.Logf("m5.large on the recorded responses: on-demand %v, spot %v over %d zones, as Karpenter's pricing provider reads them", od, spot, len(zones))

	// The deliberate bug: the earliest record of each zone, which is what
	// Karpenter's spotPage keeps of a whole history (its last record per
	// zone, AWS listing the newest first), disagrees.
	var earliest []ec2types.SpotPrice
	seen := map[string]bool{}
	for i := len(raw.SpotPriceHistory) - 1; i >= 0; i-- {
		r := raw.SpotPriceHistory[i]
		z := r["AvailabilityZone"].(string)
		if seen[z] {
			continue
		}
		seen[z] = true
		ts, _ := time.Parse(time.RFC3339, r["Timestamp"].(string))
		earliest = append(earliest, ec2types.SpotPrice{AvailabilityZone: lo.ToPtr(z), InstanceType: "m5.large", ProductDescription: "Linux/UNIX", SpotPrice: lo.ToPtr(r["SpotPrice"].(string)), Timestamp: &ts})
	}
	if _, buggy := karpenterPrices(t, []string{string(product)}, earliest, "m5.large", zones); buggy == l.Spot["m5.large"] {
		t.Errorf("the earliest records' spot price %v equals the latest's: the test cannot tell them apart", buggy)
	} else {
		t.Logf("caught: the earliest records give %s, the latest %s", strconv.FormatFloat(buggy, 'f', -1, 64), strconv.FormatFloat(spot, 'f', -1, 64))
	}
}
