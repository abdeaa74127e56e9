package kueuemodel

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// UnitPods is how many pods Kueue admits as one workload of the class: a
// Job's one PodSet of parallelism pods; a StatefulSet's pod group of all
// its replicas (v0.19.2 pkg/controller/jobs/statefulset: the group's
// total count is the replica count); one pod of a Deployment, whose pods
// the pod integration admits one by one.
func UnitPods(c *sched.Class) int32 {
	if c.Kind == keys.KindDeployment {
		return min(c.Pods, 1)
	}
	// An ML kind's row is its primary role: that PodSet's pods in one
	// workload (an LWS admits each group on its own).
	for _, ps := range c.PodSets {
		if ps.Row == c.Name {
			return ps.Pods
		}
	}
	return c.Pods
}

// Pin is the class as kube-scheduler sees its pods once Kueue admits them
// to flavor f: v0.19.2 pkg/podset FromAssignment takes the flavor's
// nodeLabels (and tolerations, which the tree's flavors have none of), and
// Merge adds them to the pod template's nodeSelector, refusing a key the
// template already sets otherwise. The class is a copy; its Pods are pods.
func Pin(c *sched.Class, f kueue.ResourceFlavorSpec, pods int32) (*sched.Class, error) {
	for _, k := range slices.Sorted(maps.Keys(f.NodeLabels)) {
		if have, ok := c.Pod.Spec.NodeSelector[k]; ok && have != f.NodeLabels[k] {
			// utilmaps.HaveConflict's words, as BadPodSetsUpdateError wraps them.
			return nil, fmt.Errorf("invalid PodSet update: conflict for nodeSelector: conflict for key=%s, value1=%s, value2=%s", k, have, f.NodeLabels[k])
		}
	}
	pod := c.Pod.DeepCopy()
	if len(f.NodeLabels) > 0 {
		if pod.Spec.NodeSelector == nil {
			pod.Spec.NodeSelector = map[string]string{}
		}
		maps.Copy(pod.Spec.NodeSelector, f.NodeLabels)
	}
	out := *c
	out.Pod, out.Info, out.Pods = pod, sched.Like(pod, c.Info), pods
	return &out, nil
}
