package provisioning

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

const IDKarpenterLaunch check.ID = "KarpenterLaunch"

// Karpenter launches a node for a pending pod only if the pod fits one of
// the NodePool's instance types as Karpenter computes it, and it counts a
// type's nvidia.com/gpu as EC2's GPU count (karpenter-provider-aws,
// instancetype/types.go): the time-slicing or MPS replicas the device
// plugin advertises once a node runs are unknown to it. A pod that asks
// for more GPUs than the type has fits the node kube-scheduler would see,
// but Karpenter never launches that node. ladder/karpenter's TestKarpenterSolve
// holds this to Karpenter's own scheduler.
const (
	reasonKarpenterLaunch = "class %s requests %s %s per pod, more than the %d GPU(s) of any of pool %s's instance types: the pool shares each GPU as %d (%s), which Karpenter does not count, so %s (Karpenter: \"no instance type has enough resources\"); request at most %d, or set the pool's provisioner to \"managed\", whose node group's tags tell cluster-autoscaler the shared GPUs"
	// A Karpenter pool: no node ever comes.
	launchNever = "it never launches a node for these pods, which stay Pending"
	// A "both" pool: the managed node group's nodes hold the pods, but the
	// capacity proved counted Karpenter's share too.
	launchShare = "it never launches its %d of the pool's %d nodes for these pods, which only the managed node group's nodes hold"
)

// KarpenterLaunch finds the pools whose Karpenter nodes a class fits only
// by the device plugin's shared GPUs.
func KarpenterLaunch(c *sched.Class, w *sched.Row, pools []sched.Pool) []check.Finding {
	want, ok := c.Info.Request[keys.ResourceGPU]
	if !ok {
		return nil
	}
	var out []check.Finding
	for k, cell := range w.Evaluated {
		p := &pools[w.At[k]]
		if !cell.Fits || p.KarpenterNodes == 0 || p.Replicas <= 1 || want.Value() <= p.LaunchGPUs {
			continue
		}
		how, what := "time-slicing", launchNever
		if p.MPS {
			how = "MPS"
		}
		if p.KarpenterNodes < p.MaxNodes {
			what = fmt.Sprintf(launchShare, p.KarpenterNodes, p.MaxNodes)
		}
		out = append(out, check.Finding{Severity: check.Error, Check: IDKarpenterLaunch, Class: c.Name, Pool: p.Name,
			Message: fmt.Sprintf(reasonKarpenterLaunch, c.Name, want.String(), keys.ResourceGPU, p.LaunchGPUs, p.Name, p.Replicas, how, what, p.LaunchGPUs)})
	}
	return out
}
