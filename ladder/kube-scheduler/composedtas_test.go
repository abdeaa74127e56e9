//go:build composed

package kubesched

import (
	"maps"
	"slices"
	"strings"
	"testing"

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

// TestComposedPlaceCatchesUngaterIgnored proves the TAS stage can fail: a
// path that lifted the topology gate without the ungater's hostname pins
// (the checker's model before Kueue's TAS was followed host by host) lets
// kube-scheduler spread the pods over the pool, and the rung disagrees with
// the checker on the units whose host could not hold what Kueue pinned.
func TestComposedPlaceCatchesUngaterIgnored(t *testing.T) {
	var recs []handoff.Record
	for _, r := range readComposed(t) {
		if len(r.Ungated) > 0 {
			recs = append(recs, r)
		}
	}
	var tried int
	var caught []string
	eachFleet(t, recs, func(fl *composedFleet, recs []handoff.Record) bool {
		for i := range recs {
			r := &recs[i]
			if len(r.Ungated) == 0 || r.Checker == nil || r.Checker.Placed >= int64(r.Admitted) {
				continue
			}
			tried++
			unpinned := *r
			unpinned.Ungated = make([]map[string]string, len(r.Ungated))
			if _, _, b, err := fl.judge(&unpinned, r.Template); err != nil {
				t.Fatal(err)
			} else if len(b) > 0 {
				caught = append(caught, recordString(r)+": "+b[0])
			}
		}
		return true
	})
	if tried == 0 {
		t.Fatal("no unit Kueue pins by topology to a host that cannot hold it: the pair fleets no longer combine TAS with anti-affinity or DRA")
	}
	if len(caught) < tried {
		t.Fatalf("the ungater's pins dropped, and only %d of %d units disagree", len(caught), tried)
	}
	t.Logf("ungater's pins dropped: caught in %d of %d units, e.g.\n%s", len(caught), tried, strings.Join(caught[:min(3, len(caught))], "\n"))
}
