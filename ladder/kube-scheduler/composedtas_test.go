//go:build composed

package kubesched

import (
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/internal/handoff"
)

// ungate is the pod as Kueue's topology ungater leaves it (the Kueue
// half's ungate, after pkg/controller/tas topology_ungater.go Reconcile):
// its kueue.x-k8s.io/topology scheduling gate lifted (utilpod.Ungate) and
// its domain's node labels copied into its nodeSelector.
func ungate(p *v1.Pod, labels map[string]string) {
	p.Spec.SchedulingGates = slices.DeleteFunc(p.Spec.SchedulingGates, func(g v1.PodSchedulingGate) bool {
		return g.Name == handoff.TopologyGate
	})
	if len(p.Spec.SchedulingGates) == 0 {
		p.Spec.SchedulingGates = nil
	}
	if p.Spec.NodeSelector == nil {
		p.Spec.NodeSelector = map[string]string{}
	}
	maps.Copy(p.Spec.NodeSelector, labels)
}

// tasNodes are the nodes a unit Kueue placed by topology meets: its
// flavor's pool is the nodes Kueue's TAS cache held (their hostnames and
// network layers those its topology assignment names), each publishing
// the devices of the checker's node they copy, and every other pool is
// as atMaxSize has it.
func (fl *composedFleet) tasNodes(r *handoff.Record, nodes []*v1.Node, devices map[string][]resourcev1.Device) ([]*v1.Node, map[string][]resourcev1.Device) {
	var out []*v1.Node
	for _, n := range nodes {
		if n.Labels[keys.LabelPool] == r.Pool {
			delete(devices, n.Name)
			continue
		}
		out = append(out, n)
	}
	var published []resourcev1.Device
	for _, p := range fl.cl.Pools {
		if p.Name == r.Pool && len(p.Nodes) > 0 {
			published = p.Nodes[0].Devices
		}
	}
	for i := range r.TASNodes {
		n := r.TASNodes[i].DeepCopy()
		out = append(out, n)
		devices[n.Name] = published
	}
	return out, devices
}
