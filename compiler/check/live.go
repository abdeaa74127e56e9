package check

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// ErrReasonNoNodes is kube-scheduler's word for a pool with no nodes to
// filter (a live pool scaled to zero).
const ErrReasonNoNodes = "no nodes available to schedule pods"

// FromLive is FromTree with each pool's nodes those of a running cluster
// (mapped by nodes.PoolOf), each counted once, with what its bound pods
// request taken off its allocatable, as NodeResourcesFit compares them.
// Pods that succeeded or failed hold nothing, as the scheduler's cache
// leaves them out; nodes of no pool are left out (drift reports them).
// What live nodes advertise is taken as they say it: the device plugin's
// reach is not applied to them.
func FromLive(t tree.Typed, groups []nodes.Group, cat catalog.Catalog, live []corev1.Node, pods []corev1.Pod) (*Cluster, error) {
	cl, err := FromTree(t, groups, cat)
	if err != nil {
		return nil, err
	}
	on := map[string][]*corev1.Pod{}
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			on[p.Spec.NodeName] = append(on[p.Spec.NodeName], p)
		}
	}
	at := map[string]int{}
	for i := range cl.Pools {
		cl.Pools[i].Nodes, cl.Pools[i].Live = nil, true
		at[cl.Pools[i].Name] = i
	}
	pools := nodes.PoolsOf(groups)
	for i := range live {
		n := &live[i]
		pool, _ := pools.Of(n.Labels)
		if pool == "" {
			continue
		}
		if n.Status.Allocatable == nil {
			return nil, fmt.Errorf("check: node %s reports no allocatable resources", n.Name)
		}
		p := &cl.Pools[at[pool]]
		p.Nodes = append(p.Nodes, Node{InstanceType: n.Labels[keys.LabelInstanceType], Zone: n.Labels[keys.LabelZone], Node: withRequested(n, on[n.Name])})
	}
	return cl, nil
}

// weight is how many of the pool's nodes p.Nodes[i] stands for: those of
// its type in its zone at max size, or itself for a live node.
func (p *Pool) weight(i int) int64 {
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
