package validate_test

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/load"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

func TestPrices(t *testing.T) {
	for _, tc := range []struct{ name, extra, want string }{
		{"region without prices", `prices: region: "eu-west-1"`, `region "eu-west-1" has no built-in on-demand prices: the catalog has them for us-east-1, us-gov-east-1, us-gov-west-1`},
		{"unknown type", `prices: instanceTypes: "x9.huge": spot: 1`, `prices for unknown instance type "x9.huge"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := check(t, "\n"+tc.extra)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	// The schema keeps prices positive, at their position.
	for _, extra := range []string{`prices: instanceTypes: "p5.48xlarge": spot: 0`, `prices: instanceTypes: "p5.48xlarge": onDemand: -1`} {
		_, err := load.Load([]string{testfleet.Write(t, base+"\n"+extra)})
		if err == nil || !strings.Contains(err.Error(), "out of bound >0") || !strings.Contains(err.Error(), "fleet.cue:") {
			t.Errorf("%s: got %v; want a positioned bound error", extra, err)
		}
	}
	// And below 100000 an hour, so that no sum of them becomes +Inf (a
	// build of 1.7e308 failed writing the report, "json: unsupported
	// value: +Inf", with no position; 1e400 failed to decode, with none
	// either; issue 36, Medium 10).
	for _, extra := range []string{
		`prices: instanceTypes: "p5.48xlarge": onDemand: 1.7e308`,
		`prices: instanceTypes: "p5.48xlarge": spot: 1e400`,
		`prices: instanceTypes: "p5.48xlarge": spot: 100000.01`,
	} {
		_, err := load.Load([]string{testfleet.Write(t, base+"\n"+extra)})
		if err == nil || !strings.Contains(err.Error(), "out of bound <=100000") || !strings.Contains(err.Error(), "fleet.cue:8:") {
			t.Errorf("%s: got %v; want a bound error at its position", extra, err)
		}
	}
	for _, extra := range []string{
		`prices: region: "us-east-1"`,
		`prices: instanceTypes: "p5.48xlarge": {onDemand: 55.04, spot: 21.5}`,
		"instanceTypes: \"x9.huge\": {vcpu: 4, memoryGiB: 16, maxPods: 58}\nprices: instanceTypes: \"x9.huge\": onDemand: 1",
	} {
		if err := check(t, "\n"+extra); err != nil {
			t.Errorf("%s: rejected: %v", extra, err)
		}
	}
}
