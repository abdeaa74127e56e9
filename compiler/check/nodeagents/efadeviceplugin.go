package nodeagents

import (
	"fmt"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/wire/eksctl"
)

const IDEFADevicePlugin check.ID = "EFADevicePlugin"

// An EFA node advertises vpc.amazonaws.com/efa only where the EFA device
// plugin runs: eksctl installs its DaemonSet with every node group that
// enables EFA, and its pod tolerates only CriticalAddonsOnly and
// aws.amazon.com/efa. e2e applies eksctl's own manifest from the pinned
// release and lets the real DaemonSet controller and scheduler place it.
const reasonNoEFAPlugin = "pool %s attaches EFA interfaces, but eksctl's EFA device plugin (DaemonSet %s) does not run on its nodes (%s): they advertise no %s, and the classes counting on them stay Pending; it tolerates only the taints aws.amazon.com/efa and CriticalAddonsOnly"

// EFADevicePlugin reports the EFA pools whose interfaces the EFA device
// plugin does not advertise.
func EFADevicePlugin(cl *sched.Cluster, _ []sched.Row, _ check.Intent) []check.Finding {
	var out []check.Finding
	for _, p := range cl.Pools {
		if p.NoEFAPlugin != "" {
			out = append(out, check.Finding{Severity: check.Error, Check: IDEFADevicePlugin, Pool: p.Name,
				Message: fmt.Sprintf(reasonNoEFAPlugin, p.Name, eksctl.EFADevicePluginName, strings.TrimPrefix(p.NoEFAPlugin, "node(s) "), aws.ResourceEFA)})
		}
	}
	return out
}
