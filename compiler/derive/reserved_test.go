package derive

import (
	"slices"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
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

// TestReservedQuota: a reservation-only pool's flavor holds at most its
// reserved GPUs (2 p5.48xlarge of a block, 16 GPUs, in a pool of max 4),
// split between tenants as any pool's quota is; what a tenant's quota gives
// beyond them goes to its other flavors. Counting the pool at max size (32)
// fails the unlimited and the large tenants.
func TestReservedQuota(t *testing.T) {
	one := int32(1)
	block := []spec.Reservation{{ID: "cr-0a", Type: spec.CapacityBlock, InstanceType: "p5.48xlarge", Zone: "us-east-1a", Count: 2,
		Start: "2026-12-14T11:30:00Z", End: "2026-12-28T11:30:00Z"}}
	gpus := func(n int64) *spec.Quota { return &spec.Quota{GPU: &n} }
	for _, tc := range []struct {
		name      string
		quota     *spec.Quota
		block, od int64
	}{
		{"no quota: each flavor its pool, the block its reservation", nil, 16, 16},
		{"a small quota: one workload, the block's first", gpus(8), 8, 0},
		{"the split's share of the block", gpus(24), 12, 12},
		{"above the block: the rest to on-demand", gpus(40), 16, 24},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &spec.Fleet{
				Cluster:    spec.Cluster{Zones: []string{"us-east-1a"}},
				Priorities: map[string]spec.Priority{"batch": {Value: 100}},
				Pools: map[string]spec.Pool{
					"block": {InstanceTypes: []string{"p5.48xlarge"}, Zones: []string{"us-east-1a"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 4}, Reserved: block},
					"od":    {InstanceTypes: []string{"p5.48xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 2}},
				},
				Classes: map[string]spec.Class{
					"train": {Priority: "batch", Kind: "Job", Gang: &one, Capacity: spec.OnDemand, Container: "main", Image: "img",
						GPU: &spec.GPU{Count: 8}, Resources: spec.Resources{CPU: "100", Memory: "1000Gi"}},
				},
				Tenants: map[string]spec.Tenant{"t": {Namespaces: []string{"t"}, Classes: []string{"train"}, Quota: tc.quota}},
			}
			d := Derive(f, aws.Cloud{}, aws.Catalog(nil))
			q := Queues(d, func(string) []string { return []string{"block", "od"} })[0]
			if !slices.Equal(q.Flavors, []string{"block", "od"}) {
				t.Fatalf("flavors %v, want [block od]", q.Flavors)
			}
			for f, want := range map[string]int64{"block": tc.block, "od": tc.od} {
				if got := q.Nominal[f][keys.ResourceGPU]; got.Value() != want {
					t.Errorf("%s's nominal GPUs = %s, want %d", f, got.String(), want)
				}
			}
		})
	}
}
