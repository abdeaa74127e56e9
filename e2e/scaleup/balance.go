package scaleup

import (
	"maps"
	"math"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// ignoredLabels are the labels two groups' templates may differ in and
// still be similar: processors/nodegroupset/compare_nodegroups.go,
// BasicIgnoredLabels, and those aws_nodegroups.go,
// CreateAwsNodeInfoComparator, adds.
var ignoredLabels = map[string]bool{
	corev1.LabelHostname: true, corev1.LabelFailureDomainBetaZone: true, corev1.LabelFailureDomainBetaRegion: true,
	corev1.LabelTopologyZone: true, corev1.LabelTopologyRegion: true,
	"beta.kubernetes.io/fluentd-ds-ready": true, "kops.k8s.io/instancegroup": true,
	"alpha.eksctl.io/instance-id": true, "alpha.eksctl.io/nodegroup-name": true, "eks.amazonaws.com/nodegroup": true,
	"k8s.amazonaws.com/eniConfig": true, "lifecycle": true, "topology.ebs.csi.aws.com/zone": true, "topology.k8s.aws/zone-id": true,
}

// The default difference ratios (config/autoscaling_options.go,
// DefaultMaxCapacityMemoryDifferenceRatio, DefaultMaxAllocatableDifferenceRatio,
// DefaultMaxFreeDifferenceRatio).
const (
	capacityMemoryRatio = 0.015
	allocatableRatio    = 0.05
	freeRatio           = 0.05
)

// similar restates core/scaleup/orchestrator/orchestrator.go,
// ComputeSimilarNodeGroups: with --balance-similar-node-groups, the
// other valid groups whose template is similar to g's
// (processors/nodegroupset/compare_nodegroups.go,
// IsCloudProviderNodeInfoSimilar) and that can take the same pending
// pods (matchingSchedulablePodGroups).
func similar(g *Group, valid []*Group, templates map[string]Template, fitting map[string][]Pod, o Options) []*Group {
	if !o.BalanceSimilar {
		return nil
	}
	var out []*Group
	for _, s := range valid {
		if s == g || !similarNodes(templates[g.Name].Node, templates[s.Name].Node, o.IgnoreLabels) || !samePods(fitting[g.Name], fitting[s.Name]) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// similarNodes: every capacity equal but memory, which may differ by
// capacityMemoryRatio; allocatable and free within their ratios (a
// template's free is its allocatable); labels equal but the ignored.
func similarNodes(a, b *corev1.Node, extra []string) bool {
	ignored := maps.Clone(ignoredLabels)
	for _, l := range extra {
		ignored[l] = true
	}
	if len(a.Status.Capacity) != len(b.Status.Capacity) {
		return false
	}
	for r, qa := range a.Status.Capacity {
		qb, ok := b.Status.Capacity[r]
		switch {
		case !ok:
			return false
		case r == corev1.ResourceMemory:
			if !within(qa, qb, capacityMemoryRatio) {
				return false
			}
		case qa.Cmp(qb) != 0:
			return false
		}
	}
	for r, qa := range a.Status.Allocatable {
		if !within(qa, b.Status.Allocatable[r], math.Min(allocatableRatio, freeRatio)) {
			return false
		}
	}
	for k, v := range a.Labels {
		if !ignored[k] && b.Labels[k] != v {
			return false
		}
	}
	for k := range b.Labels {
		if _, ok := a.Labels[k]; !ok && !ignored[k] {
			return false
		}
	}
	return true
}

// within restates compare_nodegroups.go, resourceListWithinTolerance.
func within(a, b resource.Quantity, ratio float64) bool {
	x, y := float64(a.MilliValue()), float64(b.MilliValue())
	lo, hi := math.Min(x, y), math.Max(x, y)
	return hi-lo <= ratio*hi
}

func samePods(a, b []Pod) bool {
	if len(a) != len(b) {
		return false
	}
	in := map[string]bool{}
	for _, p := range a {
		in[p.Pod.Namespace+"/"+p.Pod.Name] = true
	}
	for _, p := range b {
		if !in[p.Pod.Namespace+"/"+p.Pod.Name] {
			return false
		}
	}
	return true
}

// balance restates processors/nodegroupset/balancing_processor.go,
// BalanceScaleUpBetweenGroups: skip groups at max, cap the nodes at the
// room left, then add one node at a time to the smallest group.
func balance(groups []*Group, nodes int) []Increase {
	type info struct {
		g             *Group
		cur, new, max int
	}
	var infos []*info
	room := 0
	for _, g := range groups {
		if g.Size >= g.Max {
			continue
		}
		room += g.Max - g.Size
		infos = append(infos, &info{g: g, cur: g.Size, new: g.Size, max: g.Max})
	}
	if room < nodes {
		nodes = room
	}
	sort.SliceStable(infos, func(i, j int) bool { return infos[i].cur < infos[j].cur })
	for ; nodes > 0; nodes-- {
		var smallest *info
		for _, in := range infos {
			if in.new < in.max && (smallest == nil || in.new < smallest.new) {
				smallest = in
			}
		}
		smallest.new++
	}
	var out []Increase
	for _, in := range infos {
		if in.new != in.cur {
			out = append(out, Increase{Group: in.g.Name, From: in.cur, To: in.new})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	return out
}
