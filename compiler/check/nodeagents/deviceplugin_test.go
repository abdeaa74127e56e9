package nodeagents

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/wire/deviceplugin"
)

// What the DevicePlugin check says of each pool the plugin's reach marked.
func TestDevicePlugin(t *testing.T) {
	for _, tc := range []struct {
		name string
		pool sched.Pool
		want []string // the findings' message fragments
	}{
		{"reached", sched.Pool{}, nil},
		{"not reached", sched.Pool{NoDevicePlugin: "node(s) had untolerated taint {gpufleet.dev/spot: true}"},
			[]string{"pool p has GPUs, but the NVIDIA device plugin's DaemonSet does not run on its nodes (had untolerated taint {gpufleet.dev/spot: true}): they advertise no nvidia.com/gpu"}},
		{"no values", sched.Pool{NoDevicePlugin: "the tree has no " + deviceplugin.ValuesPath},
			[]string{"does not run on its nodes (the tree has no " + deviceplugin.ValuesPath + ")"}},
		{"on a CPU pool", sched.Pool{DevicePluginOnCPU: true}, []string{"pool p has no GPUs, but the NVIDIA device plugin's DaemonSet runs on its nodes"}},
		{"no MPS daemon", sched.Pool{NoDevicePlugin: sched.ErrReasonNodeAffinity, NoMPSDaemon: sched.ErrReasonNodeAffinity},
			[]string{"pool p shares its GPUs through MPS, but the NVIDIA device plugin chart's MPS control daemon does not run on its nodes (didn't match Pod's node affinity/selector): the plugin waits for it"}},
		{"a second plugin on Bottlerocket", sched.Pool{DevicePluginOnHost: true}, []string{"pool p runs Bottlerocket, whose NVIDIA variant runs the device plugin on the host, but the NVIDIA device plugin's DaemonSet runs on its nodes too"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.pool.Name = "p"
			f := DevicePlugin(&sched.Cluster{Pools: []sched.Pool{tc.pool}}, nil, check.Intent{})
			if len(f) != len(tc.want) {
				t.Fatalf("findings %+v, want %q", f, tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(f[i].Message, w) || f[i].Check != IDDevicePlugin || f[i].Pool != "p" {
					t.Errorf("finding %+v, want one containing %q", f[i], w)
				}
			}
		})
	}
}
