package nodeagents

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// What the DRAPlugin check says of a DRA pool the kubelet plugin does not
// reach, and of a pool both plugins reach.
func TestDRAPlugin(t *testing.T) {
	for _, tc := range []struct {
		name string
		pool sched.Pool
		want string
	}{
		{"reached", sched.Pool{Name: "p"}, ""},
		{"untolerated", sched.Pool{Name: "p", NoDRAPlugin: "node(s) had untolerated taint {gpufleet.dev/spot: true}"},
			"pool p publishes its GPUs through the NVIDIA DRA driver, but the driver's kubelet plugin DaemonSet does not run on its nodes (had untolerated taint {gpufleet.dev/spot: true}): they publish no ResourceSlice"},
		{"no values", sched.Pool{Name: "p", NoDRAPlugin: "the tree has no agents/dra-driver-nvidia-gpu/values.yaml"},
			"does not run on its nodes (the tree has no agents/dra-driver-nvidia-gpu/values.yaml)"},
		{"device plugin too", sched.Pool{Name: "p", DevicePluginOnDRA: true},
			"but the NVIDIA device plugin's DaemonSet runs on its nodes too: the DRA driver cannot be deployed alongside the standard GPU device plugin on the same node"},
		{"kubelet plugin too", sched.Pool{Name: "p", DRAPluginOnDevicePlugin: true},
			"pool p advertises its GPUs through the NVIDIA device plugin, but the NVIDIA DRA driver's kubelet plugin runs on its nodes too"},
	} {
		f := DRAPlugin(&sched.Cluster{Pools: []sched.Pool{tc.pool}}, nil, check.Intent{})
		switch {
		case tc.want == "" && len(f) > 0:
			t.Errorf("%s: unexpected finding %+v", tc.name, f)
		case tc.want != "" && (len(f) != 1 || !strings.Contains(f[0].Message, tc.want) || f[0].Check != IDDRAPlugin || f[0].Severity != check.Error):
			t.Errorf("%s: findings %+v, want one containing %q", tc.name, f, tc.want)
		}
	}
}
