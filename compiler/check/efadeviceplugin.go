package check

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/wire/eksctl"
)

// An EFA node advertises vpc.amazonaws.com/efa only where the EFA device
// plugin runs: eksctl installs its DaemonSet with every node group that
// enables EFA, and its pod tolerates only CriticalAddonsOnly and
// aws.amazon.com/efa. e2e applies eksctl's own manifest from the pinned
// release and lets the real DaemonSet controller and scheduler place it.
const reasonNoEFAPlugin = "pool %s attaches EFA interfaces, but eksctl's EFA device plugin (DaemonSet %s) does not run on its nodes (%s): they advertise no %s, and the classes counting on them stay Pending; it tolerates only the taints aws.amazon.com/efa and CriticalAddonsOnly"

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
func withEFAPlugin(c *Cluster) {
	pod := newDaemon(efaPluginPod())
	for i := range c.Pools {
		p := &c.Pools[i]
		for _, n := range p.Nodes {
			if _, ok := n.Node.Status.Capacity[keys.ResourceEFA]; !ok {
				continue
			}
			if why := pod.reach(n.Node); why != "" {
				p.NoEFAPlugin = why
				delete(n.Node.Status.Capacity, keys.ResourceEFA)
				delete(n.Node.Status.Allocatable, keys.ResourceEFA)
			}
		}
	}
}

// EFADevicePlugin reports the EFA pools whose interfaces the EFA device
// plugin does not advertise.
func EFADevicePlugin(cl *Cluster, _ []Row, _ Intent) []Finding {
	var out []Finding
	for _, p := range cl.Pools {
		if p.NoEFAPlugin != "" {
			out = append(out, Finding{Severity: Error, Check: IDEFADevicePlugin, Pool: p.Name,
				Message: fmt.Sprintf(reasonNoEFAPlugin, p.Name, eksctl.EFADevicePluginName, strings.TrimPrefix(p.NoEFAPlugin, "node(s) "), keys.ResourceEFA)})
		}
	}
	return out
}
