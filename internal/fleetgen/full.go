package fleetgen

import (
	"fmt"
	"slices"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// The full generator (Options.Full) covers the whole spec: sharing and MIG,
// Karpenter-only and "both" pools, dedicated and EFA pools, spreads on zone
// and host together, anti-affinity, gangs and quotas near their limits.
// Each class is derived from a pool it was sized for, so most classes land
// somewhere, and then some are perturbed just past a limit, so that the
// refusals that need arithmetic (resources, spread, anti-affinity, gangs)
// are common rather than the ones affinity or taints decide at a glance.

// poolKind is what a full-generator pool offers.
type poolKind int

const (
	wholeGPU poolKind = iota
	timeSliced
	mpsShared
	migSliced
	efaPool
	cpuPool
)

// fullTypes are instance types by pool kind; one pool takes one type,
// sometimes two of the same product, as a node group may.
var fullTypes = map[poolKind][][]string{
	wholeGPU:   {{"g4dn.xlarge"}, {"g4dn.12xlarge"}, {"g5.xlarge", "g5.2xlarge"}, {"g5.12xlarge"}, {"g6.xlarge"}, {"g6e.xlarge"}, {"g6e.12xlarge"}, {"p4d.24xlarge"}, {"p5.48xlarge"}},
	timeSliced: {{"g4dn.xlarge"}, {"g5.xlarge"}, {"g6.xlarge", "g6.2xlarge"}, {"g6.12xlarge"}},
	mpsShared:  {{"g5.xlarge"}, {"g6.xlarge"}, {"g6e.xlarge"}},
	migSliced:  {{"p4d.24xlarge"}, {"p4de.24xlarge"}, {"p5.48xlarge"}, {"p5e.48xlarge"}},
	efaPool:    {{"p4d.24xlarge"}, {"p5.48xlarge"}, {"p5en.48xlarge"}},
	cpuPool:    {{"m7i.xlarge", "m7i.2xlarge"}, {"m7i.4xlarge"}, {"c7i.2xlarge"}, {"r7i.2xlarge"}},
}

// fullPool is a generated pool with what its classes are derived from.
type fullPool struct {
	name string
	kind poolKind
	spec spec.Pool
	// node is the smallest of its types: a class sized for it fits all.
	node catalog.Instance
	// gpus is what one node advertises of gpuRes.
	gpus   int64
	gpuRes string // MIG profile, or "" for nvidia.com/gpu
}

// full fills f with pools, classes and tenants covering the whole spec.
func (g *gen) full(f *spec.Fleet, size Size) {
	cat := aws.Catalog(nil)
	f.Pools = map[string]spec.Pool{}
	pools := make([]*fullPool, size.Pools)
	for i := range pools {
		pools[i] = g.fullPool(cat, fmt.Sprintf("pool-%d", i))
	}
	names := make([]string, size.Classes)
	needs := map[string]need{}
	homes := make([]*fullPool, len(names))
	for i := range names {
		names[i] = fmt.Sprintf("class-%d", i)
		home := pools[g.r.IntN(len(pools))]
		// Every third class aims at an EFA or MIG pool when there is one,
		// since those are rare in the pool mix.
		if i%3 == 0 {
			for _, p := range pools {
				if (p.kind == efaPool || p.kind == migSliced) && g.chance(0.5) {
					home = p
				}
			}
		}
		var n need
		homes[i] = home
		f.Classes[names[i]], n = g.fullClass(home, pools)
		needs[names[i]] = n
		// Some pools are dedicated to a class homed on them.
		if home.kind != efaPool && len(home.spec.DedicatedTo) == 0 && g.chance(0.08) {
			home.spec.DedicatedTo = []string{names[i]}
		}
	}
	for _, p := range pools {
		f.Pools[p.name] = p.spec
	}
	g.fullTenants(f, names, needs)
	// Last, so that the fleets are otherwise as they were: some pools run
	// the tree's own components.
	for _, p := range pools {
		if g.chance(0.15) {
			p.spec.System = true
			f.Pools[p.name] = p.spec
		}
	}
	g.fullTopology(f, pools, cat, names)
	g.fullDRA(f, pools, names, homes)
	g.fullKarpenterDRA(f, pools, names, homes)
	g.fullMIGDRA(f, pools, names, homes)
}

// toDRA turns each pool of the kind and provisioner (not Bottlerocket, not
// TAS) to DRA with probability p, and returns those it turned.
func (g *gen) toDRA(f *spec.Fleet, pools []*fullPool, kind poolKind, provisioner string, p float64) map[string]bool {
	dra := map[string]bool{}
	for _, fp := range pools {
		if fp.kind == kind && fp.spec.Provisioner == provisioner && fp.spec.AMIFamily == "" && !fp.spec.Topology && g.chance(p) {
			fp.spec.GPUAPI = spec.GPUAPIDRA
			f.Pools[fp.name] = fp.spec
			dra[fp.name] = true
		}
	}
	return dra
}

// fullMIGDRA, last, turns some managed MIG pools to DRA (the driver
// publishing their static MIG devices) and has the MIG classes homed there
// claim their slices.
func (g *gen) fullMIGDRA(f *spec.Fleet, pools []*fullPool, names []string, homes []*fullPool) {
	dra := g.toDRA(f, pools, migSliced, spec.Managed, 0.4)
	for i, name := range names {
		c := f.Classes[name]
		// At most 8 slices a claim: where fewer are left, the allocator
		// searches every subset of them before it refuses the node, which
		// for more outlasts kube-scheduler's Filter timeout in the
		// kube-scheduler rung (the checker refuses those at once: sched
		// TestDynamicResourcesMIG).
		if !dra[homes[i].name] || c.GPU == nil || c.GPU.MIG == "" || c.GPU.API != "" || c.GPU.Count > 8 || !g.chance(0.9) {
			continue
		}
		gpu := *c.GPU
		gpu.API = spec.GPUAPIDRA
		c.GPU = &gpu
		f.Classes[name] = c
	}
}

// fullKarpenterDRA, after fullDRA so that its draws are as they were,
// turns some Karpenter whole-GPU pools to DRA, and has classes homed there
// ask through DRA; most such fleets say their Karpenter launches for
// claims (cluster.karpenter.dra), the rest meet KarpenterDRA.
func (g *gen) fullKarpenterDRA(f *spec.Fleet, pools []*fullPool, names []string, homes []*fullPool) {
	dra := g.toDRA(f, pools, wholeGPU, spec.Karpenter, 0.7)
	if len(dra) == 0 {
		return
	}
	if g.chance(0.75) {
		k := spec.KarpenterConfig{}
		if f.Cluster.Karpenter != nil {
			k = *f.Cluster.Karpenter
		}
		k.DRA = true
		f.Cluster.Karpenter = &k
	}
	for i, name := range names {
		c := f.Classes[name]
		if c.GPU == nil || c.GPU.Shared || c.GPU.MIG != "" || c.Topology != nil || c.GPU.API != "" {
			continue
		}
		if dra[homes[i].name] && g.chance(0.9) {
			gpu := *c.GPU
			gpu.API = spec.GPUAPIDRA
			c.GPU = &gpu
			f.Classes[name] = c
		}
	}
}

// fullDRA, last of all, turns some managed whole-GPU pools to DRA (the
// NVIDIA DRA driver publishing their GPUs) and has most classes homed on
// them, and a few others, ask through DRA: those land only on DRA pools,
// and the device-plugin classes homed there nowhere else.
func (g *gen) fullDRA(f *spec.Fleet, pools []*fullPool, names []string, homes []*fullPool) {
	dra := g.toDRA(f, pools, wholeGPU, spec.Managed, 0.3)
	if len(dra) == 0 {
		return
	}
	for i, name := range names {
		c := f.Classes[name]
		if c.GPU == nil || c.GPU.Shared || c.GPU.MIG != "" || c.Topology != nil {
			continue
		}
		if dra[homes[i].name] && g.chance(0.85) || g.chance(0.1) {
			gpu := *c.GPU
			gpu.API = spec.GPUAPIDRA
			c.GPU = &gpu
			f.Classes[name] = c
		} else if dra[homes[i].name] {
			// A class that still asks for nvidia.com/gpu on a pool moved
			// to DRA: the pool takes it through the extended-resource
			// bridge (no draw, so the fleets are otherwise as they were).
			homes[i].spec.ExtendedResourceBridge = true
			f.Pools[homes[i].name] = homes[i].spec
		}
	}
}

// fullTopology, last again, puts Kueue TAS on some pools whose types EC2
// topology describes, and topology requests on some queued GPU gangs:
// those homed elsewhere meet Kueue's refusal of a TAS request on a flavor
// without a Topology.
func (g *gen) fullTopology(f *spec.Fleet, pools []*fullPool, cat catalog.Catalog, names []string) {
	tas := false
	for _, p := range pools {
		described := p.spec.Sharing == nil && p.spec.MIG == ""
		for _, it := range p.spec.InstanceTypes {
			described = described && cat[it].NetworkLayers > 0
		}
		if described && g.chance(0.5) {
			p.spec.Topology, tas = true, true
			// Some declare their domains, as a capacity block's
			// placement says: layer 3's, and layer 2's around it.
			if g.chance(0.4) {
				l3 := int64(1) << g.r.IntN(3)
				p.spec.TopologyDomains = map[string]int64{spec.LevelNetworkLayer + "3": l3}
				if g.chance(0.5) {
					p.spec.TopologyDomains[spec.LevelNetworkLayer+"2"] = l3 << (1 + g.r.IntN(2))
				}
			}
			f.Pools[p.name] = p.spec
		}
	}
	if !tas {
		return
	}
	levels := []string{spec.LevelHost, spec.LevelNetworkLayer + "1", spec.LevelNetworkLayer + "2", spec.LevelNetworkLayer + "3"}
	for _, name := range names {
		c := f.Classes[name]
		if c.Kind != keys.KindJob || !c.Queued() || c.GPU == nil || !g.chance(0.6) {
			continue
		}
		c.Topology = &spec.Topology{Mode: g.pick([]string{spec.Required, spec.Preferred}), Level: g.pick(levels)}
		// Some gangs slice: in pairs (or the gang's smallest divisor),
		// each within a domain at or below the gang's level.
		if pods := c.Pods(); pods >= 2 && g.chance(0.4) {
			size := int32(2)
			for pods%size != 0 {
				size++
			}
			below := []string{spec.LevelHost}
			if at := slices.Index(levels, c.Topology.Level); at > 0 {
				below = append(below, levels[at:]...)
			}
			c.Topology.Slice = &spec.TopologySlice{Level: g.pick(below), Size: size}
		}
		f.Classes[name] = c
	}
}

func (g *gen) fullPool(cat catalog.Catalog, name string) *fullPool {
	kind := poolKind(g.weighted(40, 10, 8, 12, 8, 14))
	types := fullTypes[kind][g.r.IntN(len(fullTypes[kind]))]
	p := &fullPool{name: name, kind: kind, spec: spec.Pool{
		InstanceTypes: types,
		Capacity:      spec.OnDemand,
		Size:          spec.Size{Max: int32(1 + g.r.IntN(8))},
		Provisioner:   g.pick([]string{spec.Managed, spec.Managed, spec.Karpenter, spec.Both}),
	}}
	p.node = cat[types[0]]
	for _, t := range types[1:] {
		if in := cat[t]; in.VCPU < p.node.VCPU {
			p.node = in
		}
	}
	if g.chance(0.2) {
		p.spec.Capacity = spec.Spot
	}
	// One, two or three zones, or the cluster's (all three).
	if n := g.r.IntN(4); n > 0 {
		start := g.r.IntN(len(zones))
		for k := 0; k < n; k++ {
			p.spec.Zones = append(p.spec.Zones, zones[(start+k)%len(zones)])
		}
	}
	if p.node.GPU != nil {
		p.gpus = p.node.GPU.Count
	}
	switch kind {
	case timeSliced, mpsShared:
		strategy, replicas := "time-slicing", int64(2+g.r.IntN(4))
		if kind == mpsShared {
			strategy, replicas = "mps", g.num("2", "4", "8", "48")
		}
		p.spec.Sharing = &spec.Sharing{Strategy: strategy, Replicas: replicas}
		p.gpus *= replicas
	case migSliced:
		layouts := catalog.MIGLayouts(p.node.GPU)
		p.spec.MIG = layouts[g.r.IntN(len(layouts))]
		// A mixed layout (all-balanced) offers several profiles: classes
		// here ask for its first.
		profs, _ := catalog.MIGLayout(p.node.GPU, p.spec.MIG)
		p.gpuRes, p.gpus = profs[0].Name, p.node.GPU.Count*profs[0].PerGPU
		p.spec.Provisioner = spec.Managed // Karpenter knows no MIG slices
	case efaPool:
		p.spec.EFA, p.spec.Provisioner = true, spec.Managed
		p.spec.Zones = []string{g.pick(zones)} // EFA stays in one zone
	}
	switch p.spec.Provisioner {
	case spec.Karpenter:
		p.spec.ExpireAfter = g.pick([]string{"", "720h", "Never", "1h30m"})
	case spec.Both:
		// A managed baseline of at least one node, and a Karpenter share.
		p.spec.Size.Max = max(p.spec.Size.Max, 2)
		p.spec.Size.Min = 1 + int32(g.r.IntN(int(p.spec.Size.Max)-1))
		p.spec.ExpireAfter = g.pick([]string{"", "Never"})
	default:
		p.spec.Size.Min = int32(g.r.IntN(int(p.spec.Size.Max) + 1))
		if g.chance(0.3) {
			d := p.spec.Size.Min + int32(g.r.IntN(int(p.spec.Size.Max-p.spec.Size.Min)+1))
			p.spec.Size.Desired = &d
		}
	}
	if p.spec.Sharing == nil && p.spec.MIG == "" && g.chance(0.2) {
		p.spec.AMIFamily = "Bottlerocket"
	}
	if g.chance(0.2) {
		v := int32(g.num("100", "200", "1000"))
		p.spec.VolumeSizeGiB = &v
	}
	if g.chance(0.3) {
		p.spec.Labels = map[string]string{teamLabel: g.pick([]string{"a", "b"})}
	}
	if g.chance(0.1) {
		p.spec.Taints = []spec.Taint{{Key: "example.com/reserved", Value: g.pick([]string{"x", "y"}), Effect: g.pick([]string{"NoSchedule", "NoExecute", "PreferNoSchedule"})}}
	}
	return p
}

// weighted picks an index with the given relative weights.
func (g *gen) weighted(ws ...int) int {
	total := 0
	for _, w := range ws {
		total += w
	}
	n := g.r.IntN(total)
	for i, w := range ws {
		if n < w {
			return i
		}
		n -= w
	}
	return len(ws) - 1
}

// nodes is a pool's nodes at max size.
func (p *fullPool) nodes() int64 { return int64(p.spec.Size.Max) }

// zonesOf is how many zones a pool's nodes spread over.
func (p *fullPool) zonesOf() int {
	if len(p.spec.Zones) == 0 {
		return len(zones)
	}
	return len(p.spec.Zones)
}

// gpuFor is the GPU request of a class homed on p.
func gpuFor(p *fullPool, count int64) *spec.GPU {
	switch p.kind {
	case cpuPool:
		return nil
	case migSliced:
		return &spec.GPU{Count: count, MIG: p.gpuRes}
	case timeSliced, mpsShared:
		return &spec.GPU{Count: count, Shared: true}
	}
	return &spec.GPU{Count: count}
}
