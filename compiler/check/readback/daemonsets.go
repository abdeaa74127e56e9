package readback

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/eksctl"
	"github.com/gpufleet/gpufleet/compiler/wire/nodeagents"
)

// Daemon pods are bound to a node before any class's pod can be: the
// DaemonSets on every node (agents/daemonsets.yaml: EKS's aws-node and
// kube-proxy unless the spec lists others), and the device plugins where
// their pods run (the NVIDIA chart's plugin and MPS control daemon, which
// request nothing, and eksctl's EFA plugin). Each takes its requests and a
// pod slot; the checker takes them off the node's allocatable, which is
// the same to kube-scheduler's NodeResourcesFit. e2e runs the real
// aws-vpc-cni chart and the device plugins beside every class's pods.

// EveryNode reads the tree's record of the DaemonSets on every node; none
// if the tree has no record.
func EveryNode(t tree.Tree) ([]nodeagents.DaemonSet, error) {
	raw, ok := t[nodeagents.Path]
	if !ok {
		return nil, nil
	}
	var f nodeagents.File
	if err := yaml.UnmarshalStrict(raw, &f); err != nil {
		return nil, fmt.Errorf("check: %s: %w", nodeagents.Path, err)
	}
	return f.DaemonSets, nil
}

// withDaemonSets takes the daemon pods off every node.
func withDaemonSets(c *sched.Cluster, every []nodeagents.DaemonSet, plugin, dra *corev1.Pod) {
	pods := []*daemon{newDaemon(plugin), newDaemon(mpsDaemonPod(plugin)), newDaemon(dra)}
	efa := newDaemon(efaPluginPod())
	for i := range c.Pools {
		for _, n := range c.Pools[i].Nodes {
			var reqs []corev1.ResourceList
			for _, ds := range every {
				reqs = append(reqs, ds.Requests)
			}
			for _, d := range pods {
				if d != nil && d.reach(n.Node) == "" {
					reqs = append(reqs, nil) // requests nothing
				}
			}
			if efa.reach(n.Node) == "" {
				reqs = append(reqs, eksctl.EFADevicePluginRequests)
			}
			takeOff(n.Node.Status.Allocatable, reqs)
		}
	}
}

// takeOff subtracts each pod's requests and a pod slot from alloc, to no
// less than zero.
func takeOff(alloc corev1.ResourceList, pods []corev1.ResourceList) {
	used := corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(int64(len(pods)), resource.DecimalSI)}
	for _, rl := range pods {
		for r, q := range rl {
			sum := used[r]
			sum.Add(q)
			used[r] = sum
		}
	}
	for r, u := range used {
		have, ok := alloc[r]
		if !ok {
			continue
		}
		have.Sub(u)
		if have.Sign() < 0 {
			have = *resource.NewQuantity(0, have.Format)
		}
		alloc[r] = have
	}
}
