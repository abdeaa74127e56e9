package kueuemodel

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// Fit is how Kueue's topology-aware scheduling places a workload's pods on
// a TAS flavor's nodes: only nodes that exist, grouped into domains by
// the Topology's level labels (pkg/cache/scheduler/tas_flavor_snapshot.go,
// findLevelWithFitDomains), in slices (one pod each unless the request
// slices the PodSet). Offline the tree says how many nodes stand, and
// where the spec declares them, how many a domain of a level holds; not
// which network node EC2 puts each node under. So an undeclared network
// level gives bounds: Worst, the pods placed when its domains are as small
// as the declared ones allow (one node each where none is declared), and
// Best, as large. On live nodes their labels give the domains, and the
// two are equal.
type Fit struct {
	// Count is the workload's pods, SliceSize a slice's (Count is a
	// multiple); Standing the nodes TAS sees.
	Count, SliceSize, Standing int64
	// Worst and Best are pods, in whole slices.
	Worst, Best int64
	// Level is the Topology level Kueue looks for domains at first: the
	// one requested, or the lowest (the host) when the request names none
	// (unconstrained, or implied by a ClusterQueue of TAS flavors only).
	Level string
	// Above is Kueue's refusal of a slice level above the request's.
	Above string
}

// Sure reports whether the pods fit however the nodes are placed.
func (f Fit) Sure() bool { return f.Above == "" && f.Worst >= f.Count }

// May reports whether they fit for some placement of the nodes.
func (f Fit) May() bool { return f.Above == "" && f.Best >= f.Count }

// Reason is Kueue's message when the slices of size pods do not fit, for
// placed of count pods (tas_flavor_snapshot.go, notFitMessage).
func Reason(topology string, placed, count, size int64) string {
	unit := "slice"
	if size <= 1 {
		unit, size = "pod", 1
	}
	if placed < size {
		return fmt.Sprintf("topology %q doesn't allow to fit any of %d %s(s)", topology, count/size, unit)
	}
	return fmt.Sprintf("topology %q allows to fit only %d out of %d %s(s)", topology, placed/size, count/size, unit)
}

// NotFit is Kueue's reason for not placing the pods when placed of them
// fit, as FindTopologyAssignmentsForWorkload gives it: a slice level above
// the request's; with no node to place on, no domain at the level it looks
// at first (findLevelWithFitDomains); otherwise Reason.
func (f Fit) NotFit(topology string, placed int64) string {
	if f.Above != "" {
		return f.Above
	}
	if f.Standing == 0 && f.Level != "" {
		return fmt.Sprintf("no topology domains at level: %s", f.Level)
	}
	return Reason(topology, placed, f.Count, f.SliceSize)
}

// TASFit is how Kueue's TAS fits count pods of the class whose cell on the
// pool is cell, asking t, on the pool's standing nodes, whose Topology
// has levels (the widest first) and declared domains (nodes per domain by
// level label). A required level takes one domain of it; a preferred or
// unconstrained request, as many domains as it needs
// (findLevelWithFitDomains climbs to the top level, then spans it). A
// domain fits the slices its slice-level domains hold whole.
func TASFit(p *sched.Pool, cell *sched.Cell, levels []string, declared map[string]int64, t TopologyRequest, count int64) Fit {
	size, sliceLevel := t.slice(levels)
	f := Fit{Count: count, SliceSize: size, Level: t.Level}
	if len(levels) == 0 {
		return f // Kueue's CRD requires a level; a tree without one places nothing
	}
	if f.Level == "" {
		f.Level = levels[len(levels)-1]
	}
	req, sl := depth(levels, t.Level, t.Required), slices.Index(levels, sliceLevel)
	if sl < 0 {
		sl = len(levels) - 1
	}
	if t.Level != "" && slices.Index(levels, t.Level) > sl {
		// findTopologyAssignment's check, before any node is counted.
		f.Above = fmt.Sprintf("podset slice topology %s is above the podset topology %s", sliceLevel, t.Level)
	}
	if p.Live {
		return liveFit(p, cell, levels, f, req, sl)
	}
	// The standing nodes are in the topology whether or not the pods fit
	// them: Kueue then counts them all as excluded, and says so.
	f.Standing = int64(p.Standing)
	if cell == nil || !cell.Fits {
		return f
	}
	least, most := int64(-1), int64(0)
	for _, z := range cell.Zones {
		if z.Nodes == 0 {
			continue
		}
		if least < 0 || z.PodsPerNode < least {
			least = z.PodsPerNode
		}
		most = max(most, z.PodsPerNode)
	}
	if least < 0 || f.Standing == 0 {
		return f
	}
	worst, best := domainNodes(levels, declared, f.Standing)
	f.Worst = placed(worst, req, sl, f.Standing, least, size)
	f.Best = placed(best, req, sl, f.Standing, most, size)
	return f
}

// depth is the index in levels of the level a required request keeps to
// one domain of, or -1: a preferred or unconstrained request spans them.
func depth(levels []string, level string, required bool) int {
	if !required {
		return -1
	}
	return slices.Index(levels, level)
}

// domainNodes are the nodes a domain of each level holds, of standing
// nodes packed into domains in order, when every undeclared level's
// domains are as small (worst) or as large (best) as the declared levels
// around it allow: the narrower declared size (or one node), or the wider
// one (or every node). Validation makes a wider declared size a multiple
// of a narrower one, so the domains nest.
func domainNodes(levels []string, declared map[string]int64, standing int64) (worst, best []int64) {
	worst, best = make([]int64, len(levels)), make([]int64, len(levels))
	for i, l := range levels {
		if i == len(levels)-1 {
			worst[i], best[i] = 1, 1 // the hostname: a node each
			continue
		}
		if n, ok := declared[l]; ok {
			worst[i], best[i] = n, n
			continue
		}
		worst[i], best[i] = 1, standing
		for _, narrower := range levels[i+1:] {
			if n, ok := declared[narrower]; ok {
				worst[i] = n
				break
			}
		}
		for k := i - 1; k >= 0; k-- {
			if n, ok := declared[levels[k]]; ok {
				best[i] = n
				break
			}
		}
	}
	return worst, best
}

// placed is the pods, in whole slices of size, that the largest domain of
// level req holds (all the standing nodes where req is -1), its nodes in
// domains of level sl, each node fitting per pods: domains are packed in
// node order, so the first is the largest.
func placed(nodes []int64, req, sl int, standing, per, size int64) int64 {
	in := standing
	if req >= 0 {
		in = min(nodes[req], standing)
	}
	d := nodes[sl]
	whole := (in/d)*(d*per/size) + (in%d)*per/size
	return whole * size
}

// liveFit is TASFit on live nodes: those Kueue's TAS cache keeps (Ready and
// schedulable: nodesCache.sync drops the others) with every level's label
// (Kueue leaves the others out of the flavor, pkg/util/tas/node.go
// NodeMatchesFlavor), in the domains their labels make.
func liveFit(p *sched.Pool, cell *sched.Cell, levels []string, f Fit, req, sl int) Fit {
	pods := map[string]int64{}    // by slice-level domain
	parent := map[string]string{} // its domain of level req
	for i := range p.Nodes {
		n := p.Nodes[i].Node
		if !tasReady(n) {
			continue
		}
		key := make([]string, 0, len(levels))
		for _, l := range levels {
			v, ok := n.Labels[l]
			if !ok {
				key = nil
				break
			}
			key = append(key, v)
		}
		if key == nil {
			continue
		}
		f.Standing++
		var per int64
		if cell != nil && cell.Fits && i < len(cell.Zones) {
			per = cell.Zones[i].PodsPerNode
		}
		s := strings.Join(key[:sl+1], "\x00")
		pods[s] += per
		parent[s] = ""
		if req >= 0 {
			parent[s] = strings.Join(key[:req+1], "\x00")
		}
	}
	whole := map[string]int64{}
	for s, n := range pods {
		whole[parent[s]] += n / f.SliceSize * f.SliceSize
	}
	for _, v := range whole {
		f.Worst = max(f.Worst, v)
	}
	f.Best = f.Worst
	return f
}

// tasReady reports whether Kueue's TAS cache keeps the node: it is
// schedulable and Ready (nodesCache.sync, without the
// SchedulerLibraryIntegration gate). A node that reports no Ready
// condition at all is taken as Ready here, which Kueue does not: the
// kubelet posts one as soon as it registers the node.
func tasReady(n *corev1.Node) bool {
	if n.Spec.Unschedulable {
		return false
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return true
}
