package kueuemodel

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/check/internal/sat"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// Assignment is where Kueue admits one workload on an empty cluster:
// the flavor of each requested resource, or, when none fits, Kueue's own
// message.
type Assignment struct {
	Flavors map[corev1.ResourceName]string
	Message string
	// TAS is true when Kueue then places the workload's pods by topology
	// on the flavor's nodes (TASRequested).
	TAS bool
}

// Assign is Kueue's flavor assigner for a workload of one pod set ("main")
// of count pods like pod, in ClusterQueue cq: per resource group, the first
// flavor (in the group's order) whose taints the pod tolerates, whose
// labels its node affinity matches, and whose quota holds every resource
// of the group. Kueue's flavorFungibility default (whenCanBorrow:
// MayStopSearch) stops at the first flavor that fits, borrowing or not.
func (m *Model) Assign(cq string, pod *corev1.Pod, request corev1.ResourceList, count int32) Assignment {
	return m.AssignWith(cq, m.Admitter(pod), TopologyOf(pod), request, count)
}

// Admitter is kueue.Admits of one pod, by flavor name.
type Admitter func(flavor string) (bool, string)

// Admitter is the pod's Admitter on the model's flavors.
func (m *Model) Admitter(pod *corev1.Pod) Admitter {
	admits := kueue.Admitter(pod)
	return func(f string) (bool, string) { return admits(f, m.Flavors[f]) }
}

// AssignWith is Assign for the pod admits decides flavors for, which a memo
// may answer.
func (m *Model) AssignWith(cq string, admits Admitter, topo TopologyRequest, request corev1.ResourceList, count int32) Assignment {
	return m.AssignPodSets(cq, []PodSet{{Name: "main", Admits: admits, Topo: topo, Request: request, Count: count}})[0]
}

// findFlavor is the group's first flavor that admits the pod set and
// whose quota holds total beyond what the workload's earlier pod sets
// took (previous; nil for none).
func (m *Model) findFlavor(cq string, rg *kueue.ResourceGroup, n *quotaNode, admits Admitter, topo TopologyRequest, total map[corev1.ResourceName]int64, previous map[flavorResource]int64) (string, []string) {
	var reasons []string
	for _, f := range rg.Flavors {
		if reason := m.tasMismatch(cq, topo, f.Name, rg.CoveredResources, total); reason != "" {
			reasons = append(reasons, reason)
			continue
		}
		if ok, reason := admits(f.Name); !ok {
			reasons = append(reasons, reason)
			continue
		}
		fits := true
		for _, r := range rg.CoveredResources {
			v, ok := total[r]
			if !ok {
				continue
			}
			fr := flavorResource{f.Name, r}
			if max := n.potential(fr, 0); previous[fr]+v > max {
				fits = false
				reasons = append(reasons, fmt.Sprintf(
					"insufficient quota for %s in flavor %s, previously considered podsets requests (%s) + current podset request (%s) > maximum capacity (%s)",
					r, f.Name, Format(r, previous[fr]), Format(r, v), Format(r, max)))
			}
		}
		if fits {
			return f.Name, nil
		}
	}
	return "", reasons
}

// Candidates are the flavors, in Kueue's order, that admit the workload
// (admits) on taints and node affinity and whose quota could hold it:
// those Kueue may pick as the quota of earlier ones fills up.
func (m *Model) Candidates(cq string, admits Admitter, topo TopologyRequest, request corev1.ResourceList, count int32) []string {
	q, n := m.Queues[cq], m.nodes[cq]
	if q == nil {
		return nil
	}
	total := totals(request, count)
	var out []string
	for _, rg := range q.Spec.ResourceGroups {
		for _, f := range rg.Flavors {
			if m.tasMismatch(cq, topo, f.Name, rg.CoveredResources, total) != "" {
				continue
			}
			if ok, _ := admits(f.Name); !ok {
				continue
			}
			holds := true
			for _, r := range rg.CoveredResources {
				if v, ok := total[r]; ok && v > n.potential(flavorResource{f.Name, r}, 0) {
					holds = false
				}
			}
			if holds {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

// totals is a workload's request in Kueue's units: count pods' worth.
func totals(request corev1.ResourceList, count int32) map[corev1.ResourceName]int64 {
	out := make(map[corev1.ResourceName]int64, len(request))
	for r, v := range request {
		out[r] = sat.Mul(Value(r, v), int64(count))
	}
	return out
}

func groupOf(q *kueue.ClusterQueue, r corev1.ResourceName) *kueue.ResourceGroup {
	for i := range q.Spec.ResourceGroups {
		if slices.Contains(q.Spec.ResourceGroups[i].CoveredResources, r) {
			return &q.Spec.ResourceGroups[i]
		}
	}
	return nil
}

// Value is Kueue's resources.ResourceValue: CPU in millicores, the rest in
// units.
func Value(r corev1.ResourceName, q resource.Quantity) int64 {
	if r == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// Format is Kueue's ResourceFormatter: millicores for CPU, binary SI for
// memory, decimal for the rest.
func Format(r corev1.ResourceName, v int64) string {
	switch r {
	case corev1.ResourceCPU:
		return resource.NewMilliQuantity(v, resource.DecimalSI).String()
	case corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
		q := resource.NewQuantity(v, resource.BinarySI)
		if c, err := resource.ParseQuantity(q.String()); err == nil {
			return c.String()
		}
		return q.String()
	}
	return resource.NewQuantity(v, resource.DecimalSI).String()
}

// kueueOrder is the order Kueue's requests iterate in (its default
// VectorizedResourceRequests keeps them sorted by the FNV-64a hash of the
// name): when two resources are missing from a ClusterQueue, Kueue names
// the first.
func kueueOrder(m map[corev1.ResourceName]int64) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(m))
	for r := range m {
		out = append(out, r)
	}
	slices.Sort(out)
	hash := func(r corev1.ResourceName) uint64 {
		h := fnv.New64a()
		h.Write([]byte(r))
		return h.Sum64()
	}
	slices.SortStableFunc(out, func(a, b corev1.ResourceName) int { return cmp.Compare(hash(a), hash(b)) })
	return out
}

// Room is how many pods of request Kueue admits to flavor f of ClusterQueue
// cq, one by one, each to the first flavor with quota: the fewest, over the
// resources f's groups cover that the pod asks for, of what cq may use
// there (its guaranteed quota plus what its cohort tree lends) over one
// pod's worth. Unbounded where the pod asks for none of them.
func (m *Model) Room(cq, f string, request corev1.ResourceList) int64 {
	q, n := m.Queues[cq], m.nodes[cq]
	if q == nil {
		return 0
	}
	room := int64(-1)
	for _, rg := range q.Spec.ResourceGroups {
		if !slices.ContainsFunc(rg.Flavors, func(x kueue.FlavorQuotas) bool { return x.Name == f }) {
			continue
		}
		for _, r := range rg.CoveredResources {
			v := Value(r, request[r])
			if v <= 0 {
				continue
			}
			if k := n.potential(flavorResource{f, r}, 0) / v; room < 0 || k < room {
				room = k
			}
		}
	}
	if room < 0 {
		return 1 << 31
	}
	return room
}
