package provisioning

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// A pool whose types differ is warned of, in the words of the way its
// group launches them.
func TestMixedTypes(t *testing.T) {
	types := "g6.xlarge: 4 vCPU, 16 GiB, 1 GPU; g6.2xlarge: 8 vCPU, 32 GiB, 1 GPU"
	nodes := []sched.Node{{InstanceType: "g6.xlarge"}}
	for _, tc := range []struct {
		name string
		pool sched.Pool
		want string
	}{
		{"types match", sched.Pool{Nodes: nodes}, ""},
		{"on-demand", sched.Pool{MixedTypes: types, Nodes: nodes},
			"pool p's node group lists instance types that differ in CPU, memory or GPUs (" + types + "): the checker credits g6.xlarge, the first, which an on-demand group launches"},
		{"spot", sched.Pool{Spot: true, MixedTypes: types, Nodes: nodes}, "the group launches whichever has capacity"},
		{"no node", sched.Pool{MixedTypes: types}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.pool.Name = "p"
			f := MixedTypes(&sched.Cluster{Pools: []sched.Pool{tc.pool}}, nil, check.Intent{})
			switch {
			case tc.want == "" && len(f) > 0:
				t.Errorf("unexpected %+v", f)
			case tc.want != "" && (len(f) != 1 || !strings.Contains(f[0].Message, tc.want) || f[0].Severity != check.Warning):
				t.Errorf("findings %+v, want a warning containing %q", f, tc.want)
			}
		})
	}
}
