package nodeagents

import (
	"fmt"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
)

const IDDRAPlugin check.ID = "DRAPlugin"

// A DRA pool's GPUs are devices only where the NVIDIA DRA driver's kubelet
// plugin runs: its DaemonSet's pod (the chart's, as the tree's values set
// it, plus the DaemonSet controller's tolerations) must match the node's
// labels and tolerate its taints; it then publishes the node's
// ResourceSlice. The chart refuses to publish whole GPUs beside the device
// plugin (templates/validation.yaml: "this DRA driver cannot be deployed
// alongside the standard GPU device plugin on the same node"), so neither
// may reach the other's pools.
const (
	reasonNoDRAPlugin         = "pool %s publishes its GPUs through the NVIDIA DRA driver, but the driver's kubelet plugin DaemonSet does not run on its nodes (%s): they publish no ResourceSlice, and the classes claiming %s devices stay Pending"
	reasonDevicePluginOnDRA   = "pool %s publishes its GPUs through the NVIDIA DRA driver, but the NVIDIA device plugin's DaemonSet runs on its nodes too: the DRA driver cannot be deployed alongside the standard GPU device plugin on the same node, and both would hand out the same GPUs"
	reasonDRAPluginOnPluginGP = "pool %s advertises its GPUs through the NVIDIA device plugin, but the NVIDIA DRA driver's kubelet plugin runs on its nodes too: the DRA driver cannot be deployed alongside the standard GPU device plugin on the same node, and both would hand out the same GPUs"
)

// DRAPlugin reports the DRA pools the driver's kubelet plugin does not
// reach, and the pools both plugins reach.
func DRAPlugin(cl *sched.Cluster, _ []sched.Row, _ check.Intent) []check.Finding {
	var out []check.Finding
	for _, p := range cl.Pools {
		if p.NoDRAPlugin != "" {
			out = append(out, check.Finding{Severity: check.Error, Check: IDDRAPlugin, Pool: p.Name,
				Message: fmt.Sprintf(reasonNoDRAPlugin, p.Name, strings.TrimPrefix(p.NoDRAPlugin, "node(s) "), dradriver.DeviceClassGPU)})
		}
		if p.DevicePluginOnDRA {
			out = append(out, check.Finding{Severity: check.Error, Check: IDDRAPlugin, Pool: p.Name, Message: fmt.Sprintf(reasonDevicePluginOnDRA, p.Name)})
		}
		if p.DRAPluginOnDevicePlugin {
			out = append(out, check.Finding{Severity: check.Error, Check: IDDRAPlugin, Pool: p.Name, Message: fmt.Sprintf(reasonDRAPluginOnPluginGP, p.Name)})
		}
	}
	return out
}
