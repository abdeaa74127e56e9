package readback

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/wire/eksctl"
)

// efaPluginPod is eksctl's EFA device plugin daemon pod as the scheduler
// sees it, with the tolerations the DaemonSet controller adds.
func efaPluginPod() *corev1.Pod {
	tols := append(append([]corev1.Toleration{}, eksctl.EFADevicePluginTolerations...), daemonTolerations...)
	return &corev1.Pod{Spec: corev1.PodSpec{
		Affinity:    &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: eksctl.EFADevicePluginAffinity}},
		Tolerations: tols,
	}}
}

// withEFAPlugin takes EFA interfaces away from the nodes the EFA device
// plugin does not reach, and records why, for the EFADevicePlugin check.
func withEFAPlugin(c *sched.Cluster) {
	pod := newDaemon(efaPluginPod())
	for i := range c.Pools {
		p := &c.Pools[i]
		for _, n := range p.Nodes {
			if _, ok := n.Node.Status.Capacity[aws.ResourceEFA]; !ok {
				continue
			}
			if why := pod.reach(n.Node); why != "" {
				p.NoEFAPlugin = why
				delete(n.Node.Status.Capacity, aws.ResourceEFA)
				delete(n.Node.Status.Allocatable, aws.ResourceEFA)
			}
		}
	}
}
