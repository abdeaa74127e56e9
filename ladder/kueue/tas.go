package kueuediff

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// Labelling is how a TAS pool's synthesised standing nodes sit under EC2's
// network nodes, which the tree does not say: the checker's bounds
// (kueuemodel.TASFit) are Kueue's verdicts on its two extremes.
type Labelling int

const (
	// Worst puts every node under a network node of its own at every
	// layer, and all of them in the zone where the class's pods fit the
	// fewest per node (TASFit's Worst).
	Worst Labelling = iota
	// Best puts all the pool's nodes under one network node per layer,
	// in the zone where the most fit per node (TASFit's Best).
	Best
)

// Labellings are both, in the order the tests run them.
var Labellings = []Labelling{Worst, Best}

func (l Labelling) String() string {
	if l == Best {
		return "best"
	}
	return "worst"
}

// TASFlavor is the flavor's Topology and the Topology's levels, widest
// first, when Kueue holds the flavor as a TAS flavor.
func (k *Kueue) TASFlavor(flavor string) (topology string, levels []string, ok bool) {
	f := k.snapshot.ResourceFlavors[kueue.ResourceFlavorReference(flavor)]
	if f == nil || f.Spec.TopologyName == nil {
		return "", nil, false
	}
	topology = string(*f.Spec.TopologyName)
	levels, ok = k.Topologies[topology]
	return topology, levels, ok
}

// pool is the flavor's gpufleet.dev/pool nodeLabel.
func (k *Kueue) pool(flavor string) string {
	if f := k.snapshot.ResourceFlavors[kueue.ResourceFlavorReference(flavor)]; f != nil {
		return f.Spec.NodeLabels[keys.LabelPool]
	}
	return ""
}

// ClassNode is the pool's synthesised node whose copies stand for the
// class whose cell on the pool is cell, under labelling l: of the type the
// cell credits, in the zone where the class fits the fewest pods per node
// (Worst) or the most (Best). Without a fitting cell, the pool's first
// node: a managed node group launches its first type.
func ClassNode(p *sched.Pool, cell *sched.Cell, l Labelling) *corev1.Node {
	if len(p.Nodes) == 0 {
		return nil
	}
	if cell == nil || !cell.Fits {
		return p.Nodes[0].Node
	}
	zone, per := "", int64(-1)
	for _, z := range cell.Zones {
		if z.Nodes == 0 {
			continue
		}
		if per < 0 || (l == Worst && z.PodsPerNode < per) || (l == Best && z.PodsPerNode > per) {
			zone, per = z.Zone, z.PodsPerNode
		}
	}
	for _, n := range p.Nodes {
		if n.InstanceType == cell.Type && n.Zone == zone {
			return n.Node
		}
	}
	return p.Nodes[0].Node
}

// StandingNodes are the pool's p.Standing nodes as Kueue's TAS cache sees
// them once they run: copies of node (its labels, which hold the pool's
// and so match its flavor's nodeLabels, its taints and allocatable), each
// with a name and hostname of its own, Ready, and the Topology's levels
// labelled as l says, as the AWS cloud controller manager labels a node
// with the network nodes EC2 reports (topology.k8s.aws/network-node-layer-N):
// the nodes in order, that many to a network node (DomainSize).
func StandingNodes(p *sched.Pool, node *corev1.Node, levels []string, declared map[string]int64, l Labelling) []*corev1.Node {
	if node == nil {
		return nil
	}
	out := make([]*corev1.Node, 0, p.Standing)
	for i := range int64(p.Standing) {
		n := node.DeepCopy()
		n.Name = fmt.Sprintf("%s-tas-%d", p.Name, i)
		n.Labels = maps.Clone(node.Labels)
		n.Labels[keys.LabelHostname] = n.Name
		for k, level := range levels {
			if level == keys.LabelHostname {
				continue
			}
			n.Labels[level] = fmt.Sprintf("nn-%s-%d-%d", p.Name, k+1, i/DomainSize(levels, declared, k, int64(p.Standing), l))
		}
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
		out = append(out, n)
	}
	return out
}

// DomainSize is how many of standing nodes share a network node of
// levels[k] under l: the declared count where the pool declares one;
// otherwise, under Worst, as few as the narrower declared levels allow
// (a domain holds their domains whole), one where none is declared; under
// Best, as many as the wider declared level allows, all where none is.
func DomainSize(levels []string, declared map[string]int64, k int, standing int64, l Labelling) int64 {
	if n, ok := declared[levels[k]]; ok {
		return n
	}
	if l == Worst {
		for _, level := range levels[k+1:] {
			if n, ok := declared[level]; ok {
				return n
			}
		}
		return 1
	}
	for i := k - 1; i >= 0; i-- {
		if n, ok := declared[levels[i]]; ok {
			return n
		}
	}
	return max(standing, 1)
}

// FleetNodes are the standing nodes of every pool of the cluster whose
// flavor is a TAS flavor, copies of the pool's first node, labelled as l
// says.
func (k *Kueue) FleetNodes(cl *sched.Cluster, l Labelling) []*corev1.Node {
	var out []*corev1.Node
	for _, name := range slices.Sorted(maps.Keys(k.snapshot.ResourceFlavors)) {
		_, levels, ok := k.TASFlavor(string(name))
		if !ok {
			continue
		}
		p := PoolOf(cl, k.pool(string(name)))
		if p == nil || len(p.Nodes) == 0 {
			continue
		}
		out = append(out, StandingNodes(p, p.Nodes[0].Node, levels, k.Domains[string(name)], l)...)
	}
	return out
}

// flavorsOf are the ClusterQueue's flavors, in its resource groups' order.
func (k *Kueue) flavorsOf(cq string) []string {
	var out []string
	if c := k.snapshot.ClusterQueue(kueue.ClusterQueueReference(cq)); c != nil {
		for _, rg := range c.ResourceGroups {
			for _, f := range rg.Flavors {
				if !slices.Contains(out, string(f)) {
					out = append(out, string(f))
				}
			}
		}
	}
	return out
}

// PoolOf is the cluster's pool of that name, or nil.
func PoolOf(cl *sched.Cluster, name string) *sched.Pool {
	for i := range cl.Pools {
		if cl.Pools[i].Name == name {
			return &cl.Pools[i]
		}
	}
	return nil
}

// RandomNodes are StandingNodes under a labelling drawn by r, between
// Worst's and Best's: each network level splits its wider level's domains
// into runs of nodes, cut at random among the multiples of the nearest
// narrower declared size (one where none is), and exactly into the
// declared size where the pool declares one. Every nesting of the nodes
// that honours the declared sizes is a relabelling of one it draws.
func RandomNodes(p *sched.Pool, node *corev1.Node, levels []string, declared map[string]int64, r *rand.Rand) []*corev1.Node {
	out := StandingNodes(p, node, levels, declared, Worst)
	standing := int64(p.Standing)
	cuts := map[int64]bool{0: true}
	for k, level := range levels {
		if level == keys.LabelHostname {
			continue
		}
		step, fixed := DomainSize(levels, declared, k, standing, Worst), false
		if _, ok := declared[level]; ok {
			fixed = true
		}
		for at := step; at < standing; at += step {
			if fixed || r.IntN(2) == 0 {
				cuts[at] = true
			}
		}
		domain := int64(-1)
		for i, n := range out {
			if cuts[int64(i)] {
				domain++
			}
			n.Labels[level] = fmt.Sprintf("nn-%s-%d-r%d", p.Name, k+1, domain)
		}
	}
	return out
}

// Placed is the pods, in whole slices of size, that Kueue's verdict on a
// workload of count pods says fit (its message's count), or false where
// the verdict gives none.
func Placed(a Assignment, count, size int64) (int64, bool) {
	if a.Mode == "Fit" {
		return count, true
	}
	msg := a.Message
	if i := strings.Index(msg, "allows to fit only "); i >= 0 {
		var placed, of int64
		if _, err := fmt.Sscanf(msg[i:], "allows to fit only %d out of %d", &placed, &of); err == nil {
			return placed * size, true
		}
	}
	if strings.Contains(msg, "doesn't allow to fit any of") || strings.Contains(msg, "no topology domains at level") {
		return 0, true
	}
	return 0, false
}
