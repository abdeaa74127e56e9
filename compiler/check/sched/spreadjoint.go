package sched

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/keys"
)

// JointPlaced is how many of the class's pods place under all its hard
// spread constraints tscs at once (the PodTopologySpread check's joint
// placement).
func JointPlaced(c *Class, tscs []corev1.TopologySpreadConstraint, w *Row, pools []Pool) int64 {
	nodes := spreadNodes(c, tscs[0], w, pools)
	counts := make([]map[string]int64, len(tscs))
	domains := make([]int, len(tscs))
	for i, tsc := range tscs {
		counts[i] = map[string]int64{}
		for _, n := range nodes {
			counts[i][n.value(tsc.TopologyKey)] += 0
		}
		domains[i] = len(counts[i])
	}
	perZone, perHost := map[string]int64{}, map[string]int64{}
	placed := int64(0)
	for ; placed < int64(c.Pods); placed++ {
		mins := make([]int64, len(tscs))
		for i, tsc := range tscs {
			mins[i] = globalMinimum(counts[i], domains[i], tsc.MinDomains)
		}
		best := -1
		for j, n := range nodes {
			if n.left == 0 {
				continue
			}
			ok := true
			for i, tsc := range tscs {
				if !skewAllows(counts[i][n.value(tsc.TopologyKey)], mins[i], tsc.MaxSkew) {
					ok = false
					break
				}
			}
			if ok && (best < 0 || lessLoaded(n, nodes[best], perZone, perHost)) {
				best = j
			}
		}
		if best < 0 {
			break
		}
		n := &nodes[best]
		n.left--
		perZone[n.zone]++
		perHost[n.host]++
		for i, tsc := range tscs {
			counts[i][n.value(tsc.TopologyKey)]++
		}
	}
	return placed
}

// spreadNode is one node a spread counts, with the pods of the class it
// has room for.
type spreadNode struct {
	zone, host string
	left       int64
}

func (n spreadNode) value(key string) string {
	if key == keys.LabelHostname {
		return n.host
	}
	return n.zone
}

// lessLoaded orders nodes by the class's pods in their zone, then on them,
// then by name.
func lessLoaded(a, b spreadNode, perZone, perHost map[string]int64) bool {
	if za, zb := perZone[a.zone], perZone[b.zone]; za != zb {
		return za < zb
	}
	if ha, hb := perHost[a.host], perHost[b.host]; ha != hb {
		return ha < hb
	}
	return a.host < b.host
}

// spreadNodes lists every node of the pools at max size that the spread
// counts (its domains), named as hostname domains are, with its room; the
// pools ruled out for the class as spreadDomains visits them.
func spreadNodes(c *Class, tsc corev1.TopologySpreadConstraint, w *Row, pools []Pool) []spreadNode {
	var out []spreadNode
	w.each(ignoresAffinity(tsc), func(i int, cell Cell) {
		p := &pools[i]
		for j, n := range p.Nodes {
			if !p.credited(cell, j) || !spreadCounts(c, tsc, n.Node) {
				continue
			}
			perNode := p.perNode(cell, j)
			if SelfAntiAffinity(c, keys.LabelHostname) {
				perNode = min(perNode, 1)
			}
			for k := int64(0); k < p.Weight(j); k++ {
				out = append(out, spreadNode{zone: n.Labels[keys.LabelZone], host: p.host(j, k), left: perNode})
			}
		}
	})
	return out
}
