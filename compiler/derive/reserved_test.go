package derive

import (
	"slices"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/spec"
)

// A reserved pool's flavor comes first in a ClusterQueue, before spot and
// on-demand ones, whichever a class prefers: it is paid for used or not.
func TestReservedFlavorFirst(t *testing.T) {
	odcr := []spec.Reservation{{ID: "cr-0a", Type: spec.ODCR, InstanceType: "p5.48xlarge", Zone: "a", Count: 2}}
	d := &Fleet{Pools: []Pool{
		{Name: "a-on-demand", Spec: spec.Pool{Capacity: spec.OnDemand}},
		{Name: "b-spot", Spec: spec.Pool{Capacity: spec.Spot}},
		{Name: "c-reserved", Spec: spec.Pool{Capacity: spec.OnDemand, Reserved: odcr}},
	}}
	spot := &Class{Spec: spec.Class{Kind: "Job", Capacity: spec.PreferSpot}}
	for _, tc := range []struct {
		name    string
		classes []*Class
		want    []string
	}{
		{"on-demand first", nil, []string{"c-reserved", "a-on-demand", "b-spot"}},
		{"spot preferred", []*Class{spot}, []string{"c-reserved", "b-spot", "a-on-demand"}},
	} {
		got := orderFlavors([]string{"a-on-demand", "b-spot", "c-reserved"}, tc.classes, d)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: flavors %v, want %v", tc.name, got, tc.want)
		}
	}
}
