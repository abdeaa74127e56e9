package check

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/deviceplugin"
)

const pluginValues = `affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions: [{key: gpufleet.dev/gpu-product, operator: Exists}]
config: {default: default, name: nvidia-device-plugin-config}
tolerations:
- {key: CriticalAddonsOnly, operator: Exists}
- {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
`

// The device plugin's daemon pod runs where the chart values and the
// DaemonSet controller's own tolerations allow; a GPU node it misses
// offers no GPUs.
func TestDevicePlugin(t *testing.T) {
	gpu := map[string]string{"gpufleet.dev/gpu-product": "A10G"}
	mpsCapable := map[string]string{"gpufleet.dev/gpu-product": "A10G", "nvidia.com/mps.capable": "true"}
	gpuTaint := corev1.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}
	for _, tc := range []struct {
		name   string
		values string
		labels map[string]string
		taints []corev1.Taint
		alloc  string
		want   string // the finding's message fragment; "" for none
		gpus   bool   // GPUs left on the node
		mps    bool   // the pool shares its GPUs through MPS
	}{
		{"GPU node reached", pluginValues, gpu, []corev1.Taint{gpuTaint}, "nvidia.com/gpu=4", "", true, false},
		{"spot taint not tolerated", pluginValues, gpu, []corev1.Taint{gpuTaint, {Key: "gpufleet.dev/spot", Value: "true", Effect: corev1.TaintEffectNoSchedule}}, "nvidia.com/gpu=4",
			"pool p has GPUs, but the NVIDIA device plugin's DaemonSet does not run on its nodes (had untolerated taint {gpufleet.dev/spot: true}): they advertise no nvidia.com/gpu", false, false},
		{"a PreferNoSchedule taint does not keep it off", pluginValues, gpu, []corev1.Taint{{Key: "x", Effect: corev1.TaintEffectPreferNoSchedule}}, "nvidia.com/gpu=4", "", true, false},
		{"the DaemonSet controller's tolerations count", pluginValues, gpu, []corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}, "nvidia.com/gpu=4", "", true, false},
		{"no GPU label", pluginValues, nil, nil, "nvidia.com/gpu=4",
			"does not run on its nodes (didn't match Pod's node affinity/selector)", false, false},
		{"MIG slices go too", pluginValues, nil, nil, "nvidia.com/mig-1g.10gb=7", "does not run on its nodes", false, false},
		{"CPU node left alone", pluginValues, nil, nil, "cpu=4", "", false, false},
		{"CPU node reached", pluginValues, gpu, nil, "cpu=4", "pool p has no GPUs, but the NVIDIA device plugin's DaemonSet runs on its nodes", false, false},
		{"no values", "", gpu, nil, "nvidia.com/gpu=4", "does not run on its nodes (the tree has no " + deviceplugin.ValuesPath + ")", false, false},
		{"MPS pool with GFD's label", pluginValues, mpsCapable, nil, "nvidia.com/gpu=8", "", true, true},
		{"MPS pool without GFD's label", pluginValues, gpu, nil, "nvidia.com/gpu=8",
			"pool p shares its GPUs through MPS, but the NVIDIA device plugin chart's MPS control daemon does not run on its nodes (didn't match Pod's node affinity/selector): the plugin waits for it", false, true},
		{"time-sliced pool needs no MPS daemon", pluginValues, gpu, nil, "nvidia.com/gpu=8", "", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := tree.Tree{}
			if tc.values != "" {
				tr[deviceplugin.ValuesPath] = []byte(tc.values)
			}
			pod, err := DevicePluginPod(tr)
			if err != nil {
				t.Fatal(err)
			}
			n := node(tc.labels, tc.taints, tc.alloc)
			n.Status.Capacity = n.Status.Allocatable.DeepCopy()
			cl := &Cluster{Pools: []Pool{{Name: "p", MPS: tc.mps, Nodes: []Node{{Node: n}}}}}
			withDevicePlugin(cl, pod)
			f := DevicePlugin(cl, nil, Intent{})
			switch {
			case tc.want == "" && len(f) > 0:
				t.Errorf("unexpected finding %+v", f)
			case tc.want != "" && (len(f) != 1 || !strings.Contains(f[0].Message, tc.want) || f[0].Check != IDDevicePlugin):
				t.Errorf("findings %+v, want one containing %q", f, tc.want)
			}
			if got := hasGPUs(n); got != tc.gpus {
				t.Errorf("GPUs left on the node: %v, want %v", got, tc.gpus)
			}
		})
	}
}

// A values file that is not the chart's shape is an error, not ignored.
func TestDevicePluginValuesStrict(t *testing.T) {
	if _, err := DevicePluginPod(tree.Tree{deviceplugin.ValuesPath: []byte("tolerations: []\nnodeSelectr: {}\n")}); err == nil {
		t.Error("no error for an unknown field")
	}
}
