package readback

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
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
// offers no GPUs, and its pool records why.
func TestDevicePluginReach(t *testing.T) {
	gpu := map[string]string{"gpufleet.dev/gpu-product": "A10G"}
	mpsCapable := map[string]string{"gpufleet.dev/gpu-product": "A10G", "nvidia.com/mps.capable": "true"}
	gpuTaint := corev1.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}
	for _, tc := range []struct {
		name   string
		values string
		labels map[string]string
		taints []corev1.Taint
		alloc  string
		mps    bool   // the pool shares its GPUs through MPS
		why    string // why the plugin does not run on the GPU node, kube-scheduler's words
		onCPU  bool   // it runs on a node without GPUs
		gpus   bool   // GPUs left on the node
	}{
		{"GPU node reached", pluginValues, gpu, []corev1.Taint{gpuTaint}, "nvidia.com/gpu=4", false, "", false, true},
		{"spot taint not tolerated", pluginValues, gpu, []corev1.Taint{gpuTaint, {Key: "gpufleet.dev/spot", Value: "true", Effect: corev1.TaintEffectNoSchedule}}, "nvidia.com/gpu=4", false,
			"node(s) had untolerated taint {gpufleet.dev/spot: true}", false, false},
		{"a PreferNoSchedule taint does not keep it off", pluginValues, gpu, []corev1.Taint{{Key: "x", Effect: corev1.TaintEffectPreferNoSchedule}}, "nvidia.com/gpu=4", false, "", false, true},
		{"the DaemonSet controller's tolerations count", pluginValues, gpu, []corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}, "nvidia.com/gpu=4", false, "", false, true},
		{"no GPU label", pluginValues, nil, nil, "nvidia.com/gpu=4", false, sched.ErrReasonNodeAffinity, false, false},
		{"MIG slices go too", pluginValues, nil, nil, "nvidia.com/mig-1g.10gb=7", false, sched.ErrReasonNodeAffinity, false, false},
		{"CPU node left alone", pluginValues, nil, nil, "cpu=4", false, "", false, false},
		{"CPU node reached", pluginValues, gpu, nil, "cpu=4", false, "", true, false},
		{"no values", "", gpu, nil, "nvidia.com/gpu=4", false, "the tree has no " + deviceplugin.ValuesPath, false, false},
		{"MPS pool with GFD's label", pluginValues, mpsCapable, nil, "nvidia.com/gpu=8", true, "", false, true},
		{"MPS pool without GFD's label", pluginValues, gpu, nil, "nvidia.com/gpu=8", true, sched.ErrReasonNodeAffinity, false, false},
		{"time-sliced pool needs no MPS daemon", pluginValues, gpu, nil, "nvidia.com/gpu=8", false, "", false, true},
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
			n := checktest.Node(tc.labels, tc.taints, tc.alloc)
			n.Status.Capacity = n.Status.Allocatable.DeepCopy()
			cl := &sched.Cluster{Pools: []sched.Pool{{Name: "p", MPS: tc.mps, Nodes: []sched.Node{{Node: n}}}}}
			withDevicePlugin(cl, pod)
			p := cl.Pools[0]
			mpsWhy := ""
			if tc.mps {
				mpsWhy = tc.why
			}
			if p.NoDevicePlugin != tc.why || p.NoMPSDaemon != mpsWhy || p.DevicePluginOnCPU != tc.onCPU {
				t.Errorf("pool: no plugin %q, no MPS daemon %q, on CPU %v; want %q, %q, %v", p.NoDevicePlugin, p.NoMPSDaemon, p.DevicePluginOnCPU, tc.why, mpsWhy, tc.onCPU)
			}
			if got := sched.HasGPUs(n); got != tc.gpus {
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
