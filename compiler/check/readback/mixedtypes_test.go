package readback

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/nodes"
)

// A group that launches its first type says how its types differ; one
// Karpenter picks from does not, and every group credits what it launches.
func TestMixedTypesRead(t *testing.T) {
	cat := aws.Catalog(nil)
	for _, tc := range []struct {
		name   string
		types  []string
		first  bool
		spot   bool
		want   string
		credit []string
	}{
		{"one type", []string{"g6.xlarge"}, true, false, "", []string{"g6.xlarge"}},
		{"same size", []string{"m7i.2xlarge", "m6i.2xlarge"}, true, false, "", []string{"m7i.2xlarge"}},
		{"same size, GPU memory differs", []string{"p4d.24xlarge", "p4de.24xlarge"}, true, true, "", []string{"p4d.24xlarge"}},
		{"sizes differ", []string{"g6.xlarge", "g6.2xlarge"}, true, false,
			"g6.xlarge: 4 vCPU, 16 GiB, 1 GPU; g6.2xlarge: 8 vCPU, 32 GiB, 1 GPU", []string{"g6.xlarge"}},
		{"spot sizes differ", []string{"m7i.2xlarge", "m7i.4xlarge"}, true, true, "m7i.2xlarge: 8 vCPU, 32 GiB; m7i.4xlarge: 16 vCPU, 64 GiB", []string{"m7i.2xlarge"}},
		{"GPU counts differ", []string{"g6.12xlarge", "g6.48xlarge"}, true, false, "4 GPUs; g6.48xlarge", []string{"g6.12xlarge"}},
		{"Karpenter picks any", []string{"g6.xlarge", "g6.2xlarge"}, false, false, "", []string{"g6.xlarge", "g6.2xlarge"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := nodes.Group{Pool: "p", Spot: tc.spot, InstanceTypes: tc.types, Zones: []string{"z"}, MaxNodes: 1, FirstTypeOnly: tc.first}
			p, err := poolFrom(g, cat, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := nodeTypes(p); !slices.Equal(got, tc.credit) {
				t.Errorf("nodes of %v, want %v", got, tc.credit)
			}
			if !strings.Contains(p.MixedTypes, tc.want) || tc.want == "" && p.MixedTypes != "" {
				t.Errorf("mixed types %q, want %q", p.MixedTypes, tc.want)
			}
		})
	}
}

// nodeTypes are the instance types of p's nodes, in order.
func nodeTypes(p sched.Pool) []string {
	var out []string
	for _, n := range p.Nodes {
		out = append(out, n.InstanceType)
	}
	return out
}
