package sched

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/keys"
)

// ErrReasonSpread is kube-scheduler's PodTopologySpread reason.
const ErrReasonSpread = "node(s) didn't match pod topology spread constraints"

// SpreadPlaced is how many of the class's pods one hard spread constraint
// lets run, placed one by one, and its domains described.
func SpreadPlaced(c *Class, tsc corev1.TopologySpreadConstraint, w *Row, pools []Pool) (int64, string) {
	domains := spreadDomains(c, tsc, w, pools)
	described := describeDomains(domains)
	placed, _ := placeSpread(int64(c.Pods), domains, tsc)
	return placed, described
}

// HardSpreads are the class's DoNotSchedule constraints on its own pods.
func HardSpreads(c *Class) []corev1.TopologySpreadConstraint {
	var hard []corev1.TopologySpreadConstraint
	for _, tsc := range c.Pod.Spec.TopologySpreadConstraints {
		if tsc.WhenUnsatisfiable == corev1.DoNotSchedule && selectsSelf(tsc.LabelSelector, tsc.MatchLabelKeys, c.Pod) {
			hard = append(hard, tsc)
		}
	}
	return hard
}

// domain is one topology value. A pod placed there draws on one of its
// sources: a pool's nodes in that zone, or one node.
type domain struct {
	name    string
	sources []*source
}

// source is a budget of pods.
type source struct{ left int64 }

func (d domain) open() bool {
	for _, s := range d.sources {
		if s.left > 0 {
			return true
		}
	}
	return false
}

func (d domain) take() {
	for _, s := range d.sources {
		if s.left > 0 {
			s.left--
			return
		}
	}
}

// spreadDomains are the constraint's domains, in name order, each with the
// nodes where the class's pods can go. A pool ruled out for the class is
// visited only if the constraint ignores node affinity: all of its nodes
// fail it, so none counts otherwise.
func spreadDomains(c *Class, tsc corev1.TopologySpreadConstraint, w *Row, pools []Pool) []domain {
	counted := func(n *corev1.Node) bool { return spreadCounts(c, tsc, n) }
	oneEach := SelfAntiAffinity(c, keys.LabelHostname)
	byName := map[string]*domain{}
	get := func(name string) *domain {
		if byName[name] == nil {
			byName[name] = &domain{name: name}
		}
		return byName[name]
	}
	w.each(ignoresAffinity(tsc), func(i int, cell Cell) {
		p := &pools[i]
		for j, n := range p.Nodes {
			// The pool's nodes are of the type credited to it; in each zone
			// they count as domains if that type's node is counted.
			if !p.credited(cell, j) || !counted(n.Node) {
				continue
			}
			nodes := p.Weight(j)
			perNode := p.perNode(cell, j)
			if oneEach {
				perNode = min(perNode, 1) // required anti-affinity: one per node
			}
			if tsc.TopologyKey == keys.LabelHostname {
				for k := int64(0); k < nodes; k++ {
					d := get(p.host(j, k))
					if perNode > 0 {
						d.sources = append(d.sources, &source{left: perNode})
					}
				}
				continue
			}
			value := n.Labels[tsc.TopologyKey]
			if value == "" {
				continue
			}
			d := get(value)
			if perNode > 0 {
				d.sources = append(d.sources, &source{left: nodes * perNode})
			}
		}
	})
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]domain, len(names))
	for i, n := range names {
		out[i] = *byName[n]
	}
	return out
}

// spreadCounts reports whether the constraint counts the node's domain:
// by its node inclusion policies, affinity honoured and taints ignored
// unless set otherwise.
func spreadCounts(c *Class, tsc corev1.TopologySpreadConstraint, n *corev1.Node) bool {
	honorTaints := tsc.NodeTaintsPolicy != nil && *tsc.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor
	if !ignoresAffinity(tsc) && !affinityMatches(c, n) {
		return false
	}
	if honorTaints {
		_, untolerated := UntoleratedTaint(c.Pod, n)
		return !untolerated
	}
	return true
}

func ignoresAffinity(tsc corev1.TopologySpreadConstraint) bool {
	return tsc.NodeAffinityPolicy != nil && *tsc.NodeAffinityPolicy == corev1.NodeInclusionPolicyIgnore
}

// globalMinimum is the fewest matching pods in any of the constraint's
// domains, or zero while there are fewer domains than minDomains.
func globalMinimum(counts map[string]int64, domains int, minDomains *int32) int64 {
	if domains == 0 || (minDomains != nil && int32(domains) < *minDomains) {
		return 0
	}
	first := true
	var m int64
	for _, n := range counts {
		if first || n < m {
			m, first = n, false
		}
	}
	return m
}

// skewAllows reports whether one more pod in a domain holding count keeps
// the skew against the global minimum within maxSkew.
func skewAllows(count, globalMin int64, maxSkew int32) bool {
	return count+1-globalMin <= int64(maxSkew)
}

// poolType is the instance type a pool's nodes have for a class: the one
// credited to it, or its first type where the class cannot land.
func poolType(cell Cell, p Pool) string {
	if cell.Type != "" {
		return cell.Type
	}
	if len(p.Nodes) > 0 {
		return p.Nodes[0].InstanceType
	}
	return ""
}

// placeSpread puts pods one at a time into the least-loaded domain with
// room, as long as the skew against the global minimum stays within
// maxSkew; fewer domains than minDomains makes the global minimum zero.
func placeSpread(pods int64, domains []domain, tsc corev1.TopologySpreadConstraint) (int64, bool) {
	counts := make(map[string]int64, len(domains))
	for _, d := range domains {
		counts[d.name] = 0
	}
	for placed := int64(0); placed < pods; placed++ {
		globalMin := globalMinimum(counts, len(domains), tsc.MinDomains)
		best := -1
		for i, d := range domains {
			if !d.open() || !skewAllows(counts[d.name], globalMin, tsc.MaxSkew) {
				continue
			}
			if best < 0 || counts[d.name] < counts[domains[best].name] {
				best = i
			}
		}
		if best < 0 {
			return placed, false
		}
		domains[best].take()
		counts[domains[best].name]++
	}
	return pods, true
}

func describeDomains(ds []domain) string {
	open, closed := 0, 0
	for _, d := range ds {
		if len(d.sources) > 0 {
			open++
		} else {
			closed++
		}
	}
	return fmt.Sprintf("%d domain(s) it can land in and %d it matches but cannot", open, closed)
}
