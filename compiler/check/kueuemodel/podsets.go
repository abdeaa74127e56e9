package kueuemodel

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// PodSet is one pod set of a workload of several (an ML kind's role):
// Kueue's PodSet name, what admits its pods to a flavor, one pod's
// request and its count.
type PodSet struct {
	Name    string
	Admits  Admitter
	Topo    TopologyRequest
	Request corev1.ResourceList
	Count   int32
}

// AssignPodSets is Kueue's flavor assigner for a workload of several pod
// sets in ClusterQueue cq (v0.19.2 pkg/scheduler/flavorassigner
// assignFlavors): pod set by pod set in the workload's order, each
// resource group's first flavor that admits the pod set and whose quota
// holds its request beyond what the earlier pod sets took there; it stops
// at the first pod set that fits nowhere, whose Message is Kueue's
// ("couldn't assign flavors to pod set <name>: ..."). One Assignment per
// pod set assigned, the last the one that failed.
func (m *Model) AssignPodSets(cq string, sets []PodSet) []Assignment {
	q, n := m.Queues[cq], m.nodes[cq]
	out := make([]Assignment, 0, len(sets))
	var previous map[flavorResource]int64 // what the earlier pod sets took
	for k, ps := range sets {
		a := Assignment{Flavors: map[corev1.ResourceName]string{}, TAS: m.TASRequested(cq, ps.Topo)}
		if q == nil {
			a.Message = fmt.Sprintf("ClusterQueue %s not found", cq)
			return append(out, a)
		}
		total := totals(ps.Request, ps.Count)
		for _, r := range kueueOrder(total) {
			if _, done := a.Flavors[r]; done {
				continue
			}
			rg := groupOf(q, r)
			if rg == nil {
				if total[r] == 0 {
					continue
				}
				a.Message = podSetNamed(ps.Name, []string{fmt.Sprintf("resource %s unavailable in ClusterQueue", r)})
				return append(out, a)
			}
			flavor, reasons := m.findFlavor(cq, rg, n, ps.Admits, ps.Topo, total, previous)
			if flavor == "" {
				a.Message = podSetNamed(ps.Name, reasons)
				return append(out, a)
			}
			for _, c := range rg.CoveredResources {
				if _, ok := total[c]; ok {
					a.Flavors[c] = flavor
				}
			}
		}
		if k+1 < len(sets) {
			if previous == nil {
				previous = map[flavorResource]int64{}
			}
			for r, f := range a.Flavors {
				previous[flavorResource{f, r}] += total[r]
			}
		}
		out = append(out, a)
	}
	return out
}

// podSetNamed is Kueue's Assignment.Message for pod set name.
func podSetNamed(name string, reasons []string) string {
	slices.Sort(reasons)
	return "couldn't assign flavors to pod set " + name + ": " + strings.Join(reasons, ", ")
}
