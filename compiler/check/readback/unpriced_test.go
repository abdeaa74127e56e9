package readback

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// A Karpenter pool is credited only the types Karpenter has a price for in
// the cluster's region, and records the others: none where the catalog
// lacks the region's prices, for a managed group, or for a type the spec
// adds. A pool left with no type refuses every class.
func TestUnpriced(t *testing.T) {
	cat := aws.Catalog(map[string]spec.InstanceType{"x9.huge": {VCPU: 8, MemoryGiB: 32, MaxPods: 58}})
	for _, tc := range []struct {
		name     string
		types    []string
		region   string // the group's PriceRegion: "" for a managed group
		managed  bool
		unpriced []string
		credit   []string
	}{
		{"only unpriced", []string{"p5e.48xlarge"}, "us-east-1", false, []string{"p5e.48xlarge"}, nil},
		{"one unpriced of two", []string{"p5e.48xlarge", "p5en.48xlarge"}, "us-east-1", false, []string{"p5e.48xlarge"}, []string{"p5en.48xlarge"}},
		{"all priced", []string{"p5en.48xlarge", "p5.48xlarge"}, "us-east-1", false, nil, []string{"p5en.48xlarge", "p5.48xlarge"}},
		{"region without built-in prices", []string{"p5e.48xlarge"}, "us-west-2", false, nil, []string{"p5e.48xlarge"}},
		{"managed group", []string{"p5e.48xlarge"}, "", true, nil, []string{"p5e.48xlarge"}},
		{"the spec's own type", []string{"x9.huge"}, "us-east-1", false, nil, []string{"x9.huge"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := nodes.Group{Pool: "p", InstanceTypes: tc.types, Zones: []string{"z"}, MaxNodes: 1, FirstTypeOnly: tc.managed, PriceRegion: tc.region}
			p, err := poolFrom(g, cat, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := nodeTypes(p); !slices.Equal(got, tc.credit) {
				t.Errorf("nodes of %v, want %v", got, tc.credit)
			}
			// A pool left with no type refuses every class, in Karpenter's words.
			c := &sched.Class{Name: "c", Pod: &corev1.Pod{}}
			c.Info = sched.NewPodInfo(c.Pod)
			if cell := sched.Evaluate(c, &p); len(tc.credit) == 0 && (cell.Fits || !slices.Equal(cell.Reasons, []string{sched.ErrReasonNoOffering})) {
				t.Errorf("cell %+v, want refused: %s", cell, sched.ErrReasonNoOffering)
			}
			switch u := p.Unpriced; {
			case tc.unpriced == nil && u != nil:
				t.Errorf("unexpected %+v", u)
			case tc.unpriced != nil && (u == nil || u.Region != tc.region || !slices.Equal(u.Types, tc.unpriced) || !slices.Equal(u.Priced, tc.credit)):
				t.Errorf("unpriced %+v, want %v in %s", u, tc.unpriced, tc.region)
			}
		})
	}
}
