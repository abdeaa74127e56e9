package pricelist

import (
	"maps"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The recorded responses (testdata/pricelist/README.md) and variations
// of them, each read as Karpenter's pricing provider reads the API's.
func TestPriceList(t *testing.T) {
	product := read(t, "testdata/get-products-m5.large.json")
	spot := read(t, "testdata/describe-spot-price-history-m5.large.json")
	cli := `{"FormatVersion": "aws_v1", "PriceList": [` + strconv.Quote(product) + `]}`
	for _, tc := range []struct {
		name, region, products, spot string
		onDemand, spotUSD            map[string]float64
		err                          string
	}{
		{name: "one recorded product", region: "us-east-1", products: product, onDemand: map[string]float64{"m5.large": 0.096}},
		{name: "the CLI's page, entries as strings", region: "us-east-1", products: cli, onDemand: map[string]float64{"m5.large": 0.096}},
		{name: "another region's product", region: "us-west-2", products: strings.Replace(product, `"location"`, `"regionCode": "us-east-1", "location"`, 1), onDemand: map[string]float64{}},
		{name: "Windows is not Linux", region: "us-east-1", products: strings.Replace(product, `"operatingSystem": "Linux"`, `"operatingSystem": "Windows"`, 1), onDemand: map[string]float64{}},
		{name: "dedicated tenancy on a virtual type", region: "us-east-1", products: strings.Replace(product, `"tenancy": "Shared"`, `"tenancy": "Dedicated"`, 1), onDemand: map[string]float64{}},
		{name: "two prices for one type", region: "us-east-1", products: `{"PriceList": [` + strconv.Quote(product) + `,` + strconv.Quote(strings.Replace(product, `"USD": "0.0960000000"`, `"USD": "0.1"`, 1)) + `]}`, err: "m5.large has two on-demand prices, 0.096 and 0.1"},
		{name: "not JSON", region: "us-east-1", products: `{"PriceList": [`, err: "unexpected end of JSON input"},
		// The latest record of each of five zones (0.0437, 0.0423, 0.0389,
		// 0.0381, 0.0431): the dearest, us-east-1f's.
		{name: "recorded spot history", region: "us-east-1", spot: spot, spotUSD: map[string]float64{"m5.large": 0.0437}},
		{name: "another region's zones", region: "us-east-2", spot: spot, spotUSD: map[string]float64{}},
		{name: "Windows spot prices", region: "us-east-1", spot: strings.ReplaceAll(spot, `"Linux/UNIX"`, `"Windows"`), spotUSD: map[string]float64{}},
		{name: "not spot history", region: "us-east-1", spot: `{"Spot": []}`, err: "no SpotPriceHistory"},
		{name: "a record without a timestamp", region: "us-east-1", spot: `{"SpotPriceHistory": [{"InstanceType": "m5.large", "SpotPrice": "0.1"}]}`, err: "SpotPriceHistory[0]: a record without"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New(tc.region)
			var err error
			if tc.products != "" {
				err = l.ReadProducts([]byte(tc.products))
			}
			if err == nil && tc.spot != "" {
				err = l.ReadSpotHistory([]byte(tc.spot))
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.onDemand != nil && !maps.Equal(l.OnDemand, tc.onDemand) {
				t.Errorf("on-demand %v, want %v", l.OnDemand, tc.onDemand)
			}
			if tc.spotUSD != nil && !maps.Equal(l.Spot, tc.spotUSD) {
				t.Errorf("spot %v, want %v", l.Spot, tc.spotUSD)
			}
		})
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
