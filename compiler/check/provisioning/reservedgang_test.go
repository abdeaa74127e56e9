package provisioning

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/nodes"
)

// A gang of 4 one-node pods on a pool of p5.48xlarge in two zones, 4
// nodes each at max size.
func TestReservedGang(t *testing.T) {
	block := func(zone string, n int32) nodes.Reservation {
		return nodes.Reservation{Selector: "cr-0a", Block: true, InstanceType: "p5.48xlarge", Zone: zone, Count: n}
	}
	cell := sched.Cell{Fits: true, Type: "p5.48xlarge", Zones: []sched.ZoneCapacity{{Zone: "a", Nodes: 4, PodsPerNode: 1}, {Zone: "b", Nodes: 4, PodsPerNode: 1}}}
	for _, tc := range []struct {
		name      string
		reserved  []nodes.Reservation
		fallsBack bool
		gang      bool
		fits      bool
		want      string
	}{
		{"one zone holds it", []nodes.Reservation{block("a", 4)}, false, true, true, ""},
		{"split over two zones", []nodes.Reservation{block("a", 2), block("b", 2)}, false, true, true,
			"class c runs 4 pods at once, but pool p launches only into its reservations, whose instances hold at most 2 of them in one zone (a: 2 reserved p5.48xlarge, 1 pods each)"},
		{"too few", []nodes.Reservation{block("a", 3)}, false, true, true, "hold at most 3 of them"},
		{"another type reserved", []nodes.Reservation{{Selector: "cr-0b", InstanceType: "p5e.48xlarge", Zone: "a", Count: 4}}, false, true, true, "hold at most 0 of them in one zone (none of p5.48xlarge)"},
		{"falls back to on-demand", []nodes.Reservation{block("a", 2)}, true, true, true, ""},
		{"not a gang", []nodes.Reservation{block("a", 2)}, false, false, true, ""},
		{"does not land", []nodes.Reservation{block("a", 2)}, false, true, false, ""},
		{"not reserved", nil, false, true, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cell
			c.Fits = tc.fits
			f := ReservedGang(&sched.Class{Name: "c", Pods: 4, Gang: tc.gang}, sched.NewRow([]sched.Cell{c}), []sched.Pool{{Name: "p", Reserved: tc.reserved, FallsBack: tc.fallsBack}})
			switch {
			case tc.want == "" && len(f) > 0:
				t.Errorf("unexpected %+v", f)
			case tc.want != "" && (len(f) != 1 || !strings.Contains(f[0].Message, tc.want) || f[0].Severity != check.Error || f[0].Pool != "p"):
				t.Errorf("findings %+v, want one error containing %q", f, tc.want)
			}
		})
	}
}
