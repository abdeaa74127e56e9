package drift

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/cloud"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// want is what a pool's nodes should be.
type want struct {
	group nodes.Group
	// alloc is the allocatable the checker credits each instance type the
	// pool launches with: the catalog's, shared or partitioned as the
	// pool's labels say, less GPUs where the device plugin cannot run.
	alloc map[string]corev1.ResourceList
}

func newWant(g nodes.Group, cl *sched.Cluster) *want {
	w := &want{group: g, alloc: map[string]corev1.ResourceList{}}
	if cl == nil {
		return w
	}
	for _, p := range cl.Pools {
		if p.Name != g.Pool {
			continue
		}
		for _, n := range p.Nodes {
			if _, ok := w.alloc[n.InstanceType]; !ok {
				w.alloc[n.InstanceType] = n.Status.Allocatable
			}
		}
	}
	return w
}

// compare lists how n differs from the pool's nodes.
func (w *want) compare(n *corev1.Node, cat catalog.Catalog) []Finding {
	var out []Finding
	add := func(k Kind, format string, args ...any) {
		msg := fmt.Sprintf(format, append([]any{n.Name, w.group.Pool}, args...)...)
		out = append(out, Finding{Kind: k, Pool: w.group.Pool, Node: n.Name, Message: msg})
	}
	w.labels(n, add)
	w.taints(n, add)
	w.instance(n, cat, add)
	w.zone(n, add)
	return out
}

type adder func(k Kind, format string, args ...any)

// labels: every label the pool sets, with its value; no gpufleet label
// it does not set. Labels only one provisioner sets (Karpenter's) are not
// the pool's.
func (w *want) labels(n *corev1.Node, add adder) {
	for _, k := range slices.Sorted(maps.Keys(w.group.Labels)) {
		v := w.group.Labels[k]
		switch have, ok := n.Labels[k]; {
		case !ok:
			add(MissingLabel, reasonMissingLabel, k, v)
		case have != v:
			add(MissingLabel, reasonWrongLabel, k, have, v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(n.Labels)) {
		if _, set := w.group.Labels[k]; ownLabel(k) && !set {
			add(ExtraLabel, reasonExtraLabel, k, n.Labels[k])
		}
	}
}

// ownLabel is a label only gpufleet sets on nodes: its own domain's, and
// the NVIDIA labels that pick the device plugin's config and the MIG
// layout.
func ownLabel(k string) bool {
	return strings.HasPrefix(k, keys.Domain) || k == keys.LabelDevicePluginConfig || k == keys.LabelMIGConfig
}

// managedTaints are the prefixes of taints Kubernetes, the cloud provider,
// Karpenter and cluster-autoscaler put on nodes and take off themselves,
// and those of the clouds' own controllers.
var managedTaints = append([]string{
	"node.kubernetes.io/", "node.cloudprovider.kubernetes.io/", "node-role.kubernetes.io/",
	"karpenter.sh/",
	"ToBeDeletedByClusterAutoscaler", "DeletionCandidateOfClusterAutoscaler",
}, cloud.ManagedTaints()...)

// taints: every taint the pool sets, and no other but the managed ones.
func (w *want) taints(n *corev1.Node, add adder) {
	same := func(a corev1.Taint) func(corev1.Taint) bool {
		return func(b corev1.Taint) bool { return a.Key == b.Key && a.Value == b.Value && a.Effect == b.Effect }
	}
	for _, t := range w.group.Taints {
		if !slices.ContainsFunc(n.Spec.Taints, same(t)) {
			add(MissingTaint, reasonMissingTaint, t.ToString())
		}
	}
	for _, t := range n.Spec.Taints {
		managed := slices.ContainsFunc(managedTaints, func(p string) bool { return strings.HasPrefix(t.Key, p) })
		if !managed && !slices.ContainsFunc(w.group.Taints, same(t)) {
			add(ExtraTaint, reasonExtraTaint, t.ToString())
		}
	}
}

// instance: one of the pool's instance types, advertising the GPUs and
// memory the catalog predicts for it.
func (w *want) instance(n *corev1.Node, cat catalog.Catalog, add adder) {
	it, ok := n.Labels[keys.LabelInstanceType]
	if !ok {
		add(InstanceType, reasonNoInstanceType, keys.LabelInstanceType)
		return
	}
	inPool := slices.Contains(w.group.InstanceTypes, it)
	if !inPool {
		add(InstanceType, reasonInstanceType, it, strings.Join(w.group.InstanceTypes, ", "))
	}
	in, known := cat[it]
	if !known {
		if inPool {
			add(InstanceType, reasonUnknownInstance, it)
		}
		return
	}
	alloc := n.Status.Allocatable
	// A DRA pool's GPUs are devices in its ResourceSlices, never
	// nvidia.com/gpu on the node (drift reads no ResourceSlices).
	dra := w.group.NodeLabels()[keys.LabelGPUAPI] == spec.GPUAPIDRA
	if in.GPU != nil && in.GPU.Count > 0 && gpuTotal(alloc) == 0 && !dra {
		add(NoDevicePlugin, reasonNoDevicePlugin, it, in.GPU.Count, keys.ResourceGPU)
	} else if pred, ok := w.alloc[it]; ok {
		for _, r := range gpuResources(pred, alloc) {
			if have, want := alloc[r], pred[r]; have.Value() != want.Value() {
				add(GPUs, reasonGPUs, it, have.Value(), r, want.Value())
			}
		}
	}
	pred, ok := w.alloc[it]
	if !ok {
		return
	}
	have, want := alloc[corev1.ResourceMemory], pred[corev1.ResourceMemory]
	if want.IsZero() {
		return
	}
	off := 100 * (have.AsApproximateFloat64() - want.AsApproximateFloat64()) / want.AsApproximateFloat64()
	if off > MemoryTolerancePercent || off < -MemoryTolerancePercent {
		add(Memory, reasonMemory, it, gib(have.AsApproximateFloat64()), gib(want.AsApproximateFloat64()), off, MemoryTolerancePercent)
	}
}

// zone: one of the pool's zones, where the pool names them.
func (w *want) zone(n *corev1.Node, add adder) {
	if len(w.group.Zones) == 0 {
		return
	}
	z, ok := n.Labels[keys.LabelZone]
	switch {
	case !ok:
		add(Zone, reasonNoZone, keys.LabelZone)
	case !slices.Contains(w.group.Zones, z):
		add(Zone, reasonZone, z, strings.Join(w.group.Zones, ", "))
	}
}

func gib(bytes float64) string { return fmt.Sprintf("%.1fGi", bytes/(1<<30)) }

func isGPU(r corev1.ResourceName) bool { return r == keys.ResourceGPU || catalog.IsMIGResource(r) }

// gpuTotal is every GPU and MIG slice a node advertises.
func gpuTotal(rl corev1.ResourceList) int64 {
	var n int64
	for r, q := range rl {
		if isGPU(r) {
			n += q.Value()
		}
	}
	return n
}

// gpuResources lists, sorted, the GPU resources either list has.
func gpuResources(a, b corev1.ResourceList) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, rl := range []corev1.ResourceList{a, b} {
		for r := range rl {
			if isGPU(r) && !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	slices.Sort(out)
	return out
}

// noPool is NoPool's message.
func noPool(n *corev1.Node) string {
	return fmt.Sprintf(reasonNoPool, n.Name, strings.Join(nodes.PoolLabels, ", "))
}
