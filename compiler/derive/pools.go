package derive

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

func derivePool(name string, p spec.Pool, clusterZones []string, cl cloud.Cloud, cat catalog.Catalog) Pool {
	efa, efaTaint := cl.Fabric()
	pool := Pool{Name: name, Spec: p, Zones: p.Zones, Labels: map[string]string{}, Fabric: efa}
	if len(pool.Zones) == 0 {
		pool.Zones = clusterZones
	}
	for _, it := range p.InstanceTypes {
		pool.Instances = append(pool.Instances, cat[it])
	}
	pool.GPU = poolGPU(pool.Instances)
	if p.Topology {
		pool.Topology = poolTopology(pool.Instances, cl)
		if pool.Topology != nil && len(p.TopologyDomains) > 0 {
			pool.Topology.Domains = map[string]int64{}
			for level, n := range p.TopologyDomains {
				pool.Topology.Domains[LevelLabel(level, cl)] = n
			}
		}
	}
	// A MIG pool's nodes advertise slices and no nvidia.com/gpu: the
	// cloud's GPU label would tell cluster-autoscaler to wait for GPUs
	// that never come (the AutoscalerGPUReady check).
	if p.MIG == "" {
		pool.CloudLabels = cl.NodeLabels(pool.GPU)
	}

	pool.Labels[keys.LabelPool] = name
	pool.Labels[keys.LabelCapacity] = p.Capacity
	if pool.GPU != nil {
		pool.Labels[keys.LabelGPUProduct] = pool.GPU.Product
		pool.Labels[keys.LabelGPUMemory] = strconv.FormatInt(pool.GPU.MemoryGiB, 10)
		if pool.GPU.Count > 0 {
			pool.Labels[keys.LabelGPUCount] = strconv.FormatInt(pool.GPU.Count, 10)
		}
		// GPU nodes repel everything that does not ask for a GPU; EFA
		// pools do below, with the one taint their device plugin tolerates.
		if !p.EFA {
			pool.Taints = append(pool.Taints, corev1.Taint{Key: keys.TaintGPU, Value: "true", Effect: corev1.TaintEffectNoSchedule})
		}
	}
	// EFA nodes repel everything that does not ask for EFA. The EFA device
	// plugin tolerates no other taint: nvidia.com/gpu would keep it off,
	// and the nodes would advertise no EFA.
	if p.EFA {
		pool.Taints = append(pool.Taints, corev1.Taint{Key: efaTaint, Value: "true", Effect: corev1.TaintEffectNoSchedule})
	}
	if p.Capacity == spec.Spot {
		pool.Taints = append(pool.Taints, corev1.Taint{Key: keys.TaintSpot, Value: "true", Effect: corev1.TaintEffectNoSchedule})
	}
	if len(p.DedicatedTo) > 0 {
		pool.Labels[keys.LabelDedicated] = name
		pool.Taints = append(pool.Taints, corev1.Taint{Key: keys.TaintDedicated, Value: name, Effect: corev1.TaintEffectNoSchedule})
	}
	// The device plugin and the MIG manager act on these labels.
	if p.Sharing != nil {
		pool.Labels[keys.LabelDevicePluginConfig] = SharingProfile(*p.Sharing)
		// The plugin serves MPS only once the chart's MPS control daemon
		// runs on the node, and that daemon selects this label.
		if p.Sharing.Strategy == "mps" {
			pool.Labels[keys.LabelMPSCapable] = "true"
		}
	}
	if p.MIG != "" {
		pool.Labels[keys.LabelMIGConfig] = p.MIG
	}
	for k, v := range p.Labels {
		pool.Labels[k] = v
	}
	for _, t := range p.Taints {
		pool.Taints = append(pool.Taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
	}
	return pool
}

// poolGPU summarises a pool's GPUs for its labels. Validation guarantees one
// product per pool. Labels are per node group, not per instance type, so a
// count that varies is left out and the memory label is the smallest: a
// class asking for at least that much is then never placed on less.
func poolGPU(instances []catalog.Instance) *catalog.GPU {
	var g *catalog.GPU
	for _, in := range instances {
		if in.GPU == nil {
			continue
		}
		if g == nil {
			c := *in.GPU
			g = &c
			continue
		}
		if in.GPU.Count != g.Count {
			g.Count = 0
		}
		if in.GPU.MemoryGiB < g.MemoryGiB {
			g.MemoryGiB = in.GPU.MemoryGiB
		}
	}
	return g
}

// SharingProfile names a sharing config: its key in the device plugin's
// ConfigMap and the value of the label that selects it, e.g. "time-slicing-4".
func SharingProfile(s spec.Sharing) string {
	return s.Strategy + "-" + strconv.FormatInt(s.Replicas, 10)
}

// Replicas is how many times the pool's device plugin advertises each GPU.
func (p *Pool) Replicas() int64 {
	if p.Spec.Sharing == nil {
		return 1
	}
	return p.Spec.Sharing.Replicas
}

// Units is CapacityUnits as the device plugin advertises the pool's
// resources: time-sliced GPUs multiplied, MIG pools in slices.
func (p *Pool) Units(r corev1.ResourceName, unit resource.Quantity) int64 {
	if r == p.Fabric {
		return p.launchable(func(in catalog.Instance) int64 {
			if p.Spec.EFA {
				return in.EFA
			}
			return 0
		})
	}
	if r != keys.ResourceGPU && !catalog.IsMIGResource(r) {
		return p.CapacityUnits(r, unit)
	}
	return p.launchable(func(in catalog.Instance) int64 {
		q := in.Shared(in.Capacity(), p.Replicas(), p.Spec.MIG)[r]
		return q.Value() / unit.Value()
	})
}

// launchable is what the pool's nodes hold at max size, per the units
// each instance holds: max nodes of its largest type, or, on a pool that
// launches only into its reservations (whenExhausted "none"), each
// reservation's instances of its type, all it can launch (Karpenter
// offers only reserved capacity with instances left; a managed group's
// launch template targets its reservation).
func (p *Pool) launchable(per func(catalog.Instance) int64) int64 {
	if p.Spec.IsReserved() && !p.Spec.FallsBack() {
		var n int64
		for _, r := range p.Spec.Reserved {
			for _, in := range p.Instances {
				if in.Name == r.InstanceType {
					n += int64(r.Count) * per(in)
				}
			}
		}
		return n
	}
	var best int64
	for _, in := range p.Instances {
		best = max(best, per(in))
	}
	return best * int64(p.Spec.Size.Max)
}

// Default node volumes: GPU nodes pull multi-GiB CUDA images and cache
// model weights; the AMIs' own 20 GiB fills up on the first pull.
const (
	defaultVolumeGiB    = 100
	defaultGPUVolumeGiB = 500
)

// VolumeGiB is the size of the pool's nodes' root (or, on Bottlerocket,
// data) volume.
func (p *Pool) VolumeGiB() int32 {
	switch {
	case p.Spec.VolumeSizeGiB != nil:
		return *p.Spec.VolumeSizeGiB
	case p.GPU != nil:
		return defaultGPUVolumeGiB
	}
	return defaultVolumeGiB
}

// NodeLabels are the labels node groups put on the pool's nodes: Labels,
// and those of CloudLabels the pool does not set itself. Kueue's flavors
// keep to Labels: the cloud's say nothing Labels does not.
func (p *Pool) NodeLabels() map[string]string {
	var extra []string
	for k := range p.CloudLabels {
		if _, own := p.Labels[k]; !own {
			extra = append(extra, k)
		}
	}
	if len(extra) == 0 {
		return p.Labels
	}
	out := make(map[string]string, len(p.Labels)+len(extra))
	for k, v := range p.Labels {
		out[k] = v
	}
	for _, k := range extra {
		out[k] = p.CloudLabels[k]
	}
	return out
}

// poolTopology is the Topology of the network layers every one of the
// pool's types is labelled with (the fewest, when they differ: Kueue's TAS
// leaves out a node missing any level's label), then the hostname, which
// lets TAS place pods on nodes itself. Nil where a type has none, which
// validation refuses.
func poolTopology(instances []catalog.Instance, cl cloud.Cloud) *Topology {
	layers := 0
	for i, in := range instances {
		if i == 0 || in.NetworkLayers < layers {
			layers = in.NetworkLayers
		}
	}
	if layers == 0 {
		return nil
	}
	t := &Topology{Name: TopologyName(layers)}
	for n := 1; n <= layers; n++ {
		t.Levels = append(t.Levels, cl.NetworkLayerLabel(n))
	}
	t.Levels = append(t.Levels, keys.LabelHostname)
	return t
}

// TopologyName names the Topology of layers network layers and the host.
func TopologyName(layers int) string { return "network-" + strconv.Itoa(layers) + "-layers" }

// Topologies are the pools' Topologies, each once, by name.
func (d *Fleet) Topologies() []*Topology {
	seen := map[string]*Topology{}
	for i := range d.Pools {
		if t := d.Pools[i].Topology; t != nil {
			seen[t.Name] = t
		}
	}
	out := make([]*Topology, 0, len(seen))
	for _, name := range spec.Keys(seen) {
		out = append(out, seen[name])
	}
	return out
}
