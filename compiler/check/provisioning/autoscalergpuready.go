package provisioning

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

const IDAutoscalerGPUReady check.ID = "AutoscalerGPUReady"

// cluster-autoscaler takes a node that carries its provider's GPU label
// (on AWS k8s.amazonaws.com/accelerator) but advertises no nvidia.com/gpu
// for one whose GPU driver is still starting, and counts it unready
// (kubernetes/autoscaler@35e8a280425c, tag cluster-autoscaler-1.36.1,
// cluster-autoscaler/processors/customresources/gpu_processor.go,
// FilterOutNodesWithUnreadyResources).
// A node whose GPUs are MIG slices never advertises nvidia.com/gpu, so it
// stays unready for its whole life: every scale-up of its group times out
// and the group is backed off, and past 3 unready nodes and 45% of the
// cluster (--ok-total-unready-count, --max-total-unready-percentage)
// cluster-autoscaler stops scaling the whole cluster.
const reasonUnreadyGPU = "cluster-autoscaler counts every node of pool %s unready for its whole life: it carries %s, by which cluster-autoscaler expects nvidia.com/gpu, but it advertises none (%s); each scale-up of its group times out and is backed off, and past 3 unready nodes and 45%% of the cluster cluster-autoscaler stops scaling the cluster: remove the label from the pool"

// AutoscalerGPUReady refuses a pool that cluster-autoscaler scales (a
// managed node group) whose nodes carry the GPU label and advertise no
// nvidia.com/gpu. Karpenter, which launches its own pools' nodes, does not
// read the label.
func AutoscalerGPUReady(cl *sched.Cluster, _ []sched.Row, in check.Intent) []check.Finding {
	if in.AutoscalerGPULabel == "" {
		return nil
	}
	var out []check.Finding
	for i := range cl.Pools {
		p := &cl.Pools[i]
		if p.Live || p.KarpenterNodes >= p.MaxNodes {
			continue
		}
		for _, n := range p.Nodes {
			if _, labelled := n.Labels[in.AutoscalerGPULabel]; !labelled {
				continue
			}
			if q, ok := n.Status.Allocatable[keys.ResourceGPU]; ok && !q.IsZero() {
				continue
			}
			out = append(out, check.Finding{Severity: check.Error, Check: IDAutoscalerGPUReady, Pool: p.Name,
				Message: fmt.Sprintf(reasonUnreadyGPU, p.Name, in.AutoscalerGPULabel, advertised(n))})
			break
		}
	}
	return out
}

// advertised names what a node offers instead of nvidia.com/gpu.
func advertised(n sched.Node) string {
	var gpus []string
	for r, q := range n.Status.Allocatable {
		if sched.IsGPU(r) && !q.IsZero() {
			gpus = append(gpus, string(r))
		}
	}
	if len(gpus) == 0 {
		return "no GPU resource at all"
	}
	slices.Sort(gpus)
	return "only " + strings.Join(gpus, ", ")
}
