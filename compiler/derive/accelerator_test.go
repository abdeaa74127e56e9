package derive

import (
	"testing"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

func TestNodeLabelsAccelerator(t *testing.T) {
	for _, tc := range []struct {
		name   string
		gpu    *catalog.GPU
		labels map[string]string
		want   string // "" means no label
	}{
		{"CPU pool", nil, nil, ""},
		{"A10G, cluster-autoscaler's name", &catalog.GPU{Product: "A10G"}, nil, "nvidia-a10g"},
		{"A100, the tesla spelling", &catalog.GPU{Product: "A100"}, nil, "nvidia-tesla-a100"},
		{"H100, not in its list", &catalog.GPU{Product: "H100"}, nil, "nvidia-h100"},
		{"the pool's own label wins", &catalog.GPU{Product: "L4"}, map[string]string{aws.LabelAccelerator: "mine"}, "mine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Pool{GPU: tc.gpu, Labels: map[string]string{keys.LabelPool: "p"}, CloudLabels: aws.Cloud{}.NodeLabels(tc.gpu)}
			for k, v := range tc.labels {
				p.Labels[k] = v
			}
			got, ok := p.NodeLabels()[aws.LabelAccelerator]
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("accelerator label %q (present %v), want %q", got, ok, tc.want)
			}
			if _, ok := p.Labels[aws.LabelAccelerator]; ok && tc.labels == nil {
				t.Error("NodeLabels changed the pool's Labels, which Kueue's flavors use")
			}
		})
	}
}

// A MIG pool's nodes advertise slices, never nvidia.com/gpu: without the
// accelerator label, cluster-autoscaler does not wait for GPUs on them
// (the AutoscalerGPUReady check).
func TestMIGPoolHasNoAccelerator(t *testing.T) {
	cat := aws.Catalog(nil)
	for _, tc := range []struct {
		mig  string
		want bool
	}{{"", true}, {"all-1g.5gb", false}} {
		p := derivePool("a100", spec.Pool{InstanceTypes: []string{"p4d.24xlarge"}, MIG: tc.mig}, []string{"us-east-1a"}, aws.Cloud{}, cat)
		if _, ok := p.NodeLabels()[aws.LabelAccelerator]; ok != tc.want {
			t.Errorf("mig %q: accelerator label present %v, want %v", tc.mig, ok, tc.want)
		}
	}
}
