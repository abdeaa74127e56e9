package check

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/nodes"
)

// A group that launches its first type says how its types differ; one
// Karpenter picks from does not, and every group credits what it launches.
func TestMixedTypesRead(t *testing.T) {
	cat := catalog.New(nil)
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

// A pool whose types differ is warned of, in the words of the way its
// group launches them.
func TestMixedTypes(t *testing.T) {
	types := "g6.xlarge: 4 vCPU, 16 GiB, 1 GPU; g6.2xlarge: 8 vCPU, 32 GiB, 1 GPU"
	nodes := []Node{{InstanceType: "g6.xlarge"}}
	for _, tc := range []struct {
		name string
		pool Pool
		want string
	}{
		{"types match", Pool{Nodes: nodes}, ""},
		{"on-demand", Pool{MixedTypes: types, Nodes: nodes},
			"pool p's node group lists instance types that differ in CPU, memory or GPUs (" + types + "): the checker credits g6.xlarge, the first, which an on-demand group launches"},
		{"spot", Pool{Spot: true, MixedTypes: types, Nodes: nodes}, "the group launches whichever has capacity"},
		{"no node", Pool{MixedTypes: types}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.pool.Name = "p"
			f := MixedTypes(&Cluster{Pools: []Pool{tc.pool}}, nil, Intent{})
			switch {
			case tc.want == "" && len(f) > 0:
				t.Errorf("unexpected %+v", f)
			case tc.want != "" && (len(f) != 1 || !strings.Contains(f[0].Message, tc.want) || f[0].Severity != Warning):
				t.Errorf("findings %+v, want a warning containing %q", f, tc.want)
			}
		})
	}
}

// nodeTypes are the instance types of p's nodes, in order.
func nodeTypes(p Pool) []string {
	var out []string
	for _, n := range p.Nodes {
		out = append(out, n.InstanceType)
	}
	return out
}
