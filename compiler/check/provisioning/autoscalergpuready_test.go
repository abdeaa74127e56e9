package provisioning

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// cluster-autoscaler's GpuCustomResourcesProcessor
// (kubernetes/autoscaler@35e8a280425c, tag cluster-autoscaler-1.36.1,
// cluster-autoscaler/processors/customresources/gpu_processor.go,
// FilterOutNodesWithUnreadyResources)
// counts a node unready when it carries the provider's GPU label and its
// allocatable nvidia.com/gpu is absent or zero: these rows are that rule's
// cases on the nodes of one managed node group.
func TestAutoscalerGPUReady(t *testing.T) {
	const label = "k8s.amazonaws.com/accelerator"
	for _, tc := range []struct {
		name      string
		labels    map[string]string
		alloc     string
		karpenter bool
		want      string
	}{
		{"GPUs advertised", map[string]string{label: "nvidia-a10g"}, "cpu=4,nvidia.com/gpu=4", false, ""},
		{"MIG slices only", map[string]string{label: "nvidia-tesla-a100"}, "cpu=4,nvidia.com/mig-1g.10gb=56", false,
			"cluster-autoscaler counts every node of pool p unready for its whole life: it carries k8s.amazonaws.com/accelerator, by which cluster-autoscaler expects nvidia.com/gpu, but it advertises none (only nvidia.com/mig-1g.10gb); each scale-up of its group times out and is backed off, and past 3 unready nodes and 45% of the cluster cluster-autoscaler stops scaling the cluster: remove the label from the pool"},
		{"zero GPUs", map[string]string{label: "nvidia-l4"}, "cpu=4,nvidia.com/gpu=0", false,
			"cluster-autoscaler counts every node of pool p unready for its whole life: it carries k8s.amazonaws.com/accelerator, by which cluster-autoscaler expects nvidia.com/gpu, but it advertises none (no GPU resource at all); each scale-up of its group times out and is backed off, and past 3 unready nodes and 45% of the cluster cluster-autoscaler stops scaling the cluster: remove the label from the pool"},
		{"no label", nil, "cpu=4,nvidia.com/mig-1g.10gb=56", false, ""},
		{"Karpenter's, not cluster-autoscaler's", map[string]string{label: "nvidia-tesla-a100"}, "cpu=4,nvidia.com/mig-1g.10gb=56", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := sched.Pool{Name: "p", MaxNodes: 2, Nodes: []sched.Node{{InstanceType: "t", Zone: "a", Node: checktest.Node(tc.labels, nil, tc.alloc)}}}
			if tc.karpenter {
				p.KarpenterNodes = 2
			}
			var got []string
			for _, f := range AutoscalerGPUReady(&sched.Cluster{Pools: []sched.Pool{p}}, nil, check.Intent{AutoscalerGPULabel: label}) {
				got = append(got, f.Message)
			}
			if strings.Join(got, "\n") != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}
