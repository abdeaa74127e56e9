package readback

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/deviceplugin"
)

// daemonTolerations are what the DaemonSet controller adds to every daemon
// pod (k8s.io/kubernetes pkg/controller/daemon/util, v1.35), so that node
// conditions do not keep or evict it.
var daemonTolerations = []corev1.Toleration{
	{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: corev1.TaintNodeDiskPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodePIDPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
}

// DevicePluginPod is the device plugin's daemon pod as the scheduler sees
// it, from the chart values in the tree; nil if the tree has none.
func DevicePluginPod(t tree.Tree) (*corev1.Pod, error) {
	raw, ok := t[deviceplugin.ValuesPath]
	if !ok {
		return nil, nil
	}
	var v deviceplugin.Values
	if err := yaml.UnmarshalStrict(raw, &v); err != nil {
		return nil, fmt.Errorf("check: %s: %w", deviceplugin.ValuesPath, err)
	}
	tols := append(append([]corev1.Toleration{}, v.Tolerations...), daemonTolerations...)
	return &corev1.Pod{Spec: corev1.PodSpec{Affinity: v.Affinity, Tolerations: tols}}, nil
}

// mpsDaemonPod is the chart's MPS control daemon pod: the plugin's, plus
// the node selector its template adds (GFD's label, which MPS pools carry).
func mpsDaemonPod(plugin *corev1.Pod) *corev1.Pod {
	if plugin == nil {
		return nil
	}
	p := plugin.DeepCopy()
	p.Spec.NodeSelector = map[string]string{keys.LabelMPSCapable: "true"}
	return p
}

// reasonNoValues is why no daemon pod runs where the tree has no values.
const reasonNoValues = "the tree has no " + deviceplugin.ValuesPath

// daemon is a daemon pod with its required node affinity parsed once, as
// it is matched against every node of the fleet.
type daemon struct {
	pod      *corev1.Pod
	affinity nodeaffinity.RequiredNodeAffinity
}

// newDaemon is pod as a daemon, or nil for no pod.
func newDaemon(pod *corev1.Pod) *daemon {
	if pod == nil {
		return nil
	}
	return &daemon{pod: pod, affinity: nodeaffinity.GetRequiredNodeAffinity(pod)}
}

// reach says why the daemon pod cannot run on node, in kube-scheduler's
// words, or "" if it can.
func (d *daemon) reach(node *corev1.Node) string {
	if d == nil {
		return reasonNoValues
	}
	if ok, _ := d.affinity.Match(node); !ok {
		return sched.ErrReasonNodeAffinity
	}
	if t, bad := sched.UntoleratedTaint(d.pod, node); bad {
		return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", t.Key, t.Value)
	}
	return ""
}

// withDevicePlugin takes GPUs away from the nodes of pools the device
// plugin does not reach, and records why, for the DevicePlugin check.
func withDevicePlugin(c *sched.Cluster, pod *corev1.Pod) {
	plugin, mps := newDaemon(pod), newDaemon(mpsDaemonPod(pod))
	for i := range c.Pools {
		p := &c.Pools[i]
		for j := range p.Nodes {
			n := p.Nodes[j].Node
			gpus := sched.HasGPUs(n)
			why := plugin.reach(n)
			mpsWhy := mps.reach(n)
			p.MPSDaemon = p.MPSDaemon || mpsWhy == ""
			// The plugin serves MPS replicas only once the daemon runs.
			if why == "" && p.MPS && mpsWhy != "" && !p.HostDevicePlugin {
				p.NoMPSDaemon = mpsWhy
				why = mpsWhy
			}
			switch {
			case p.HostDevicePlugin:
				p.DevicePluginOnHost = p.DevicePluginOnHost || why == ""
			case gpus && isDRA(n) && why == "":
				p.DevicePluginOnDRA = true
			case gpus && isDRA(n):
				stripGPUs(n) // the DRA driver publishes them (withDRAPlugin)
			case gpus && why != "":
				p.NoDevicePlugin = why
				stripGPUs(n)
			case !gpus && why == "":
				p.DevicePluginOnCPU = true
			}
		}
	}
}

// stripGPUs takes the GPU resources off a node whose GPUs no device
// plugin advertises.
func stripGPUs(n *corev1.Node) {
	for _, rl := range []corev1.ResourceList{n.Status.Capacity, n.Status.Allocatable} {
		for r := range rl {
			if sched.IsGPU(r) {
				delete(rl, r)
			}
		}
	}
}

func anyGPUs(c *sched.Cluster) bool {
	for _, p := range c.Pools {
		for _, n := range p.Nodes {
			if sched.HasGPUs(n.Node) {
				return true
			}
		}
	}
	return false
}
