package nodeagents

import (
	"fmt"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

const IDDevicePlugin check.ID = "DevicePlugin"

// A GPU node advertises GPUs only where the NVIDIA device plugin runs: its
// DaemonSet's pod must tolerate the node's taints and match its node
// affinity. The pod is the chart's, as the tree's values set it, plus the
// tolerations the DaemonSet controller adds to every daemon pod. e2e
// renders the real chart with the same values and lets the real DaemonSet
// controller and scheduler place it.
const (
	reasonNoDevicePlugin  = "pool %s has GPUs, but the NVIDIA device plugin's DaemonSet does not run on its nodes (%s): they advertise no %s, and the classes counting on them stay Pending"
	reasonDevicePluginCPU = "pool %s has no GPUs, but the NVIDIA device plugin's DaemonSet runs on its nodes, where it finds no GPU and fails to start"
	reasonNoMPSDaemon     = "pool %s shares its GPUs through MPS, but the NVIDIA device plugin chart's MPS control daemon does not run on its nodes (%s): the plugin waits for it and they advertise no %s, and the classes counting on them stay Pending"
	reasonDevicePluginBR  = "pool %s runs Bottlerocket, whose NVIDIA variant runs the device plugin on the host, but the NVIDIA device plugin's DaemonSet runs on its nodes too: two plugins would register nvidia.com/gpu"
)

// DevicePlugin reports the pools whose GPUs the device plugin does not
// advertise, and the GPU-less pools it runs on.
func DevicePlugin(cl *sched.Cluster, _ []sched.Row, _ check.Intent) []check.Finding {
	var out []check.Finding
	for _, p := range cl.Pools {
		switch {
		case p.NoMPSDaemon != "":
			out = append(out, check.Finding{Severity: check.Error, Check: IDDevicePlugin, Pool: p.Name,
				Message: fmt.Sprintf(reasonNoMPSDaemon, p.Name, strings.TrimPrefix(p.NoMPSDaemon, "node(s) "), keys.ResourceGPU)})
		case p.NoDevicePlugin != "":
			out = append(out, check.Finding{Severity: check.Error, Check: IDDevicePlugin, Pool: p.Name,
				Message: fmt.Sprintf(reasonNoDevicePlugin, p.Name, strings.TrimPrefix(p.NoDevicePlugin, "node(s) "), keys.ResourceGPU)})
		}
		if p.DevicePluginOnHost {
			out = append(out, check.Finding{Severity: check.Error, Check: IDDevicePlugin, Pool: p.Name,
				Message: fmt.Sprintf(reasonDevicePluginBR, p.Name)})
		}
		if p.DevicePluginOnCPU {
			out = append(out, check.Finding{Severity: check.Error, Check: IDDevicePlugin, Pool: p.Name,
				Message: fmt.Sprintf(reasonDevicePluginCPU, p.Name)})
		}
	}
	return out
}
