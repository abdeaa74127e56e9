package kueuemodel

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// Fit is how Kueue's topology-aware scheduling places a workload's pods on
// a TAS flavor's nodes: only nodes that exist, grouped into domains by
// the Topology's level labels (pkg/cache/scheduler/tas_flavor_snapshot.go,
// findLevelWithFitDomains). Offline the tree says how many nodes stand,
// not which network node EC2 puts each under, so a network level gives
// bounds: Worst, the pods it places when every node is a domain of its
// own, and Best, when all share one. On live nodes their labels give the
// domains, and the two are equal.
type Fit struct {
	// Count is the workload's pods; Standing the nodes TAS sees.
	Count, Standing int64
	Worst, Best     int64
	// Level is the Topology level Kueue looks for domains at first: the
	// one requested, or the lowest (the host) when the request names none
	// (unconstrained, or implied by a ClusterQueue of TAS flavors only).
	Level string
}

// Sure reports whether the pods fit however the nodes are placed.
func (f Fit) Sure() bool { return f.Worst >= f.Count }

// May reports whether they fit for some placement of the nodes.
func (f Fit) May() bool { return f.Best >= f.Count }

// Reason is Kueue's message when the pods do not fit, for placed of them
// (tas_flavor_snapshot.go, notFitMessage).
func Reason(topology string, placed, count int64) string {
	if placed <= 0 {
		return fmt.Sprintf("topology %q doesn't allow to fit any of %d pod(s)", topology, count)
	}
	return fmt.Sprintf("topology %q allows to fit only %d out of %d pod(s)", topology, placed, count)
}

// NotFit is Kueue's reason for not placing the pods when placed of them
// fit, as FindTopologyAssignmentsForWorkload gives it: with no node to
// place on, there is no domain at the level it looks at first
// (findLevelWithFitDomains); otherwise Reason.
func (f Fit) NotFit(topology string, placed int64) string {
	if f.Standing == 0 && f.Level != "" {
		return fmt.Sprintf("no topology domains at level: %s", f.Level)
	}
	return Reason(topology, placed, f.Count)
}

// TASFit is how Kueue's TAS fits count pods of the class whose cell on the
// pool is cell, asking t, on the pool's standing nodes, whose Topology
// has levels (the widest first). A required level takes one domain of it;
// a preferred or unconstrained request, as many domains as it needs
// (findLevelWithFitDomains climbs to the top level, then spans it).
func TASFit(p *sched.Pool, cell *sched.Cell, levels []string, t TopologyRequest, count int64) Fit {
	f := Fit{Count: count, Level: t.Level}
	if f.Level == "" && len(levels) > 0 {
		f.Level = levels[len(levels)-1]
	}
	if p.Live {
		return liveFit(p, cell, levels, t, count, f.Level)
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
	switch {
	case !t.Required:
		f.Worst, f.Best = f.Standing*least, f.Standing*most
	case t.Level == keys.LabelHostname:
		f.Worst, f.Best = least, most
	default:
		f.Worst, f.Best = least, f.Standing*most
	}
	return f
}

// liveFit is TASFit on live nodes: those Kueue's TAS cache keeps (Ready and
// schedulable: nodesCache.sync drops the others) with every level's label
// (Kueue leaves the others out of the flavor, pkg/util/tas/node.go
// NodeMatchesFlavor), in the domains their labels make.
func liveFit(p *sched.Pool, cell *sched.Cell, levels []string, t TopologyRequest, count int64, level string) Fit {
	f := Fit{Count: count, Level: level}
	depth := len(levels)
	if t.Required {
		for i, l := range levels {
			if l == t.Level {
				depth = i + 1
			}
		}
	}
	domains := map[string]int64{}
	var total int64
	for i := range p.Nodes {
		n := p.Nodes[i].Node
		if !tasReady(n) {
			continue
		}
		key := make([]string, 0, depth)
		for k, l := range levels {
			v, ok := n.Labels[l]
			if !ok {
				key = nil
				break
			}
			if k < depth {
				key = append(key, v)
			}
		}
		if key == nil {
			continue
		}
		f.Standing++
		var per int64
		if cell != nil && cell.Fits && i < len(cell.Zones) {
			per = cell.Zones[i].PodsPerNode
		}
		domains[strings.Join(key, "\x00")] += per
		total += per
	}
	if !t.Required {
		f.Worst, f.Best = total, total
		return f
	}
	for _, v := range domains {
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
