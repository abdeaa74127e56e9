package provisioning

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
	"github.com/gpufleet/gpufleet/compiler/wire/karpenter"
)

const IDKarpenterDRA check.ID = "KarpenterDRA"

// Karpenter launches a node for a pod that claims DRA devices only with
// IGNORE_DRA_REQUESTS off and its DRANVIDIAGPU feature gate on, both alpha
// in 1.15 and off by default: it then allocates the claims on the devices
// the NVIDIA DRA driver publishes on each instance type
// (karpenter-provider-aws providers/nvidiadra). Otherwise its scheduler
// refuses the pod ("pod has Dynamic Resource Allocation requirements that
// are not yet supported by Karpenter", sigs.k8s.io/karpenter
// provisioning/scheduling/scheduler.go), or knows no device to allocate.
// The spec's cluster.karpenter.dra writes the chart values that set both
// (nodegroups/karpenter-values.yaml); ladder/karpenter renders Karpenter's
// chart with them and holds this to its Solve.
const (
	reasonKarpenterDRA      = "class %s's pods claim %s devices, but %s, so it never launches pool %s's nodes for them, which stay Pending; set cluster.karpenter.dra (and install Karpenter with %s), or use a managed pool"
	reasonKarpenterDRAShare = "class %s's pods claim %s devices, but %s, so it never launches its %d of pool %s's %d nodes for them; set cluster.karpenter.dra (and install Karpenter with %s)"
)

// KarpenterDRA finds the Karpenter pools a class claiming DRA devices
// lands on whose Karpenter does not launch for claims.
func KarpenterDRA(c *sched.Class, w *sched.Row, pools []sched.Pool) []check.Finding {
	if !c.Info.Claims.Asks() {
		return nil
	}
	var out []check.Finding
	for k, cell := range w.Evaluated {
		p := &pools[w.At[k]]
		if !cell.Fits || p.KarpenterNodes == 0 || p.NoKarpenterDRA == "" {
			continue
		}
		msg := fmt.Sprintf(reasonKarpenterDRA, c.Name, dradriver.DeviceClassGPU, p.NoKarpenterDRA, p.Name, "the values in "+karpenter.ValuesPath)
		if p.KarpenterNodes < p.MaxNodes {
			msg = fmt.Sprintf(reasonKarpenterDRAShare, c.Name, dradriver.DeviceClassGPU, p.NoKarpenterDRA, p.KarpenterNodes, p.Name, p.MaxNodes, "the values in "+karpenter.ValuesPath)
		}
		out = append(out, check.Finding{Severity: check.Error, Check: IDKarpenterDRA, Class: c.Name, Pool: p.Name, Message: msg})
	}
	return out
}
