package nodeagents

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// What the EFADevicePlugin check says of a pool the plugin does not reach.
func TestEFADevicePlugin(t *testing.T) {
	for why, want := range map[string]string{
		"": "",
		"node(s) had untolerated taint {nvidia.com/gpu: true}": "pool p attaches EFA interfaces, but eksctl's EFA device plugin (DaemonSet aws-efa-k8s-device-plugin) does not run on its nodes (had untolerated taint {nvidia.com/gpu: true}): they advertise no vpc.amazonaws.com/efa",
	} {
		f := EFADevicePlugin(&sched.Cluster{Pools: []sched.Pool{{Name: "p", NoEFAPlugin: why}}}, nil, check.Intent{})
		switch {
		case want == "" && len(f) > 0:
			t.Errorf("unexpected finding %+v", f)
		case want != "" && (len(f) != 1 || !strings.Contains(f[0].Message, want) || f[0].Check != IDEFADevicePlugin):
			t.Errorf("findings %+v, want one containing %q", f, want)
		}
	}
}
