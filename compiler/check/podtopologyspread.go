package check

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// ErrReasonSpread is kube-scheduler's PodTopologySpread reason.
const ErrReasonSpread = "node(s) didn't match pod topology spread constraints"

// PodTopologySpread places the class's pods one by one under each
// DoNotSchedule constraint on its own pods. Domains are counted the
// scheduler's way: nodes passing node affinity (nodeAffinityPolicy Honor,
// the default) whatever their taints (nodeTaintsPolicy Ignore, the
// default), so a zone the pod matches but can never enter holds the global
// minimum at zero and caps every other zone at maxSkew.
func PodTopologySpread(c *Class, cells []Cell, pools []Pool) []Finding {
	var out []Finding
	for _, tsc := range c.Pod.Spec.TopologySpreadConstraints {
		if tsc.WhenUnsatisfiable != corev1.DoNotSchedule || !selectsSelf(tsc.LabelSelector, c.Pod) {
			continue
		}
		domains := spreadDomains(c, tsc, cells, pools)
		placed, ok := placeSpread(int64(c.Pods), domains, tsc)
		if ok {
			continue
		}
		out = append(out, Finding{Severity: Error, Check: "PodTopologySpread", Class: c.Name,
			Message: fmt.Sprintf("only %d of %d pods can be placed under maxSkew %d on %s over %s: %s",
				placed, c.Pods, tsc.MaxSkew, tsc.TopologyKey, describeDomains(domains), ErrReasonSpread)})
	}
	return out
}

// domain is one topology value: how many pods it can take (0 if the pod
// matches it but cannot land there).
type domain struct {
	name     string
	capacity int64
}

func spreadDomains(c *Class, tsc corev1.TopologySpreadConstraint, cells []Cell, pools []Pool) []domain {
	honorTaints := tsc.NodeTaintsPolicy != nil && *tsc.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor
	ignoreAffinity := tsc.NodeAffinityPolicy != nil && *tsc.NodeAffinityPolicy == corev1.NodeInclusionPolicyIgnore
	counted := func(n *corev1.Node) bool {
		if !ignoreAffinity && !affinityMatches(c, n) {
			return false
		}
		if honorTaints {
			_, untolerated := untoleratedTaint(c.Pod, n)
			return !untolerated
		}
		return true
	}
	caps := map[string]int64{}
	for i, p := range pools {
		cell := cells[i]
		for j, n := range p.Nodes {
			if !counted(n.Node) {
				continue
			}
			v := cell.Nodes[j]
			switch tsc.TopologyKey {
			case labelHostname:
				// Each of the pool's nodes is its own domain.
				for k := int32(0); k < p.MaxNodes; k++ {
					name := fmt.Sprintf("%s-%d", p.Name, k)
					if v.Fits && v.PodsPerNode > caps[name] {
						caps[name] = v.PodsPerNode
					} else if _, ok := caps[name]; !ok {
						caps[name] = 0
					}
				}
			default:
				zone := n.Labels[tsc.TopologyKey]
				if zone == "" {
					continue
				}
				if v.Fits {
					caps[zone] += cell.Capacity
				} else if _, ok := caps[zone]; !ok {
					caps[zone] = 0
				}
			}
		}
	}
	names := make([]string, 0, len(caps))
	for n := range caps {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]domain, len(names))
	for i, n := range names {
		out[i] = domain{n, caps[n]}
	}
	return out
}

// placeSpread puts pods one at a time into the least-loaded domain with
// room, as long as the skew against the global minimum stays within
// maxSkew; fewer domains than minDomains makes the global minimum zero.
func placeSpread(pods int64, domains []domain, tsc corev1.TopologySpreadConstraint) (int64, bool) {
	counts := make([]int64, len(domains))
	minDomains := int32(1)
	if tsc.MinDomains != nil {
		minDomains = *tsc.MinDomains
	}
	for placed := int64(0); placed < pods; placed++ {
		globalMin := int64(0)
		if int32(len(domains)) >= minDomains && len(domains) > 0 {
			globalMin = counts[0]
			for _, n := range counts {
				globalMin = min(globalMin, n)
			}
		}
		best := -1
		for i, d := range domains {
			if counts[i] >= d.capacity || counts[i]+1-globalMin > int64(tsc.MaxSkew) {
				continue
			}
			if best < 0 || counts[i] < counts[best] {
				best = i
			}
		}
		if best < 0 {
			return placed, false
		}
		counts[best]++
	}
	return pods, true
}

func describeDomains(ds []domain) string {
	open, closed := 0, 0
	for _, d := range ds {
		if d.capacity > 0 {
			open++
		} else {
			closed++
		}
	}
	return fmt.Sprintf("%d domain(s) it can land in and %d it matches but cannot", open, closed)
}
