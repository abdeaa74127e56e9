package sched

import "fmt"

// ErrReasonNoNodes is kube-scheduler's word for a pool with no nodes to
// filter (a live pool scaled to zero).
const ErrReasonNoNodes = "no nodes available to schedule pods"

// Weight is how many of the pool's nodes p.Nodes[i] stands for: those of
// its type in its zone at max size, or itself for a live node.
func (p *Pool) Weight(i int) int64 {
	if p.Live {
		return 1
	}
	return p.NodesInZone(p.Nodes[i].Zone)
}

// credited reports whether p.Nodes[i] counts for the class of cell: a
// node of the type credited to the pool, or any live node.
func (p *Pool) credited(cell Cell, i int) bool {
	return p.Live || p.Nodes[i].InstanceType == poolType(cell, *p)
}

// perNode is how many of the class's pods p.Nodes[i] holds.
func (p *Pool) perNode(cell Cell, i int) int64 {
	if p.Live {
		if i < len(cell.Zones) {
			return cell.Zones[i].PodsPerNode
		}
		return 0
	}
	for _, z := range cell.Zones {
		if z.Zone == p.Nodes[i].Zone {
			return z.PodsPerNode
		}
	}
	return 0
}

// host names the k-th node p.Nodes[i] stands for, as a hostname domain.
func (p *Pool) host(i int, k int64) string {
	if p.Live {
		return p.Nodes[i].Name
	}
	return fmt.Sprintf("%s-%s-%d", p.Name, p.Nodes[i].Zone, k)
}
