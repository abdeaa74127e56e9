package render

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/nodeagents"
)

// nodeAgents records the DaemonSets on every node, the spec's or the
// cloud's own, for the checker to take off every node's allocatable.
func (r *renderer) nodeAgents() {
	ds := r.d.Spec.Cluster.DaemonSets
	if ds == nil {
		ds = r.d.Cloud.NodeAgents()
	}
	f := nodeagents.File{DaemonSets: []nodeagents.DaemonSet{}}
	for _, name := range spec.Keys(ds) {
		rl := corev1.ResourceList{}
		for res, q := range map[corev1.ResourceName]spec.Quantity{corev1.ResourceCPU: ds[name].CPU, corev1.ResourceMemory: ds[name].Memory} {
			if q != "" {
				rl[res] = resource.MustParse(string(q)) // validate parsed it
			}
		}
		f.DaemonSets = append(f.DaemonSets, nodeagents.DaemonSet{Name: name, Requests: rl})
	}
	r.emit(nodeagents.Path, &f)
}
