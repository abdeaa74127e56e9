package validate

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// topology checks a class's Kueue TAS request: Kueue reads it from a
// queued workload's PodSet, gpufleet writes it on Jobs, and only a flavor
// with a Topology serves it.
func (c *checker) topology(name string, cl spec.Class) {
	if cl.Topology == nil {
		return
	}
	at := p("classes", name, "topology")
	switch {
	case cl.Kind != keys.KindJob:
		c.errorf(at, "topology needs kind Job, not %s: gpufleet asks Kueue's topology-aware scheduling to place a Job's gang", cl.Kind)
	case !cl.Queued():
		c.errorf(at, "topology needs a queued class: only Kueue places by topology, and queue: false keeps the Job from Kueue")
	case !c.anyTopologyPool():
		c.errorf(at, "class %q asks for topology, but no pool sets topology: true, so no ResourceFlavor names a Kueue Topology", name)
	}
	c.slice(name, cl)
}

// slice checks a sliced gang: Kueue's webhook refuses a slice larger than
// the PodSet (ValidateSliceSizeAnnotationUpperBound), its TAS a slice
// level above the request's (findTopologyAssignment), and it counts whole
// slices (count / size), so a size that does not divide the gang would
// leave pods in no slice.
func (c *checker) slice(name string, cl spec.Class) {
	s := cl.Topology.Slice
	if s == nil {
		return
	}
	at := p("classes", name, "topology", "slice")
	pods := cl.Pods()
	switch {
	case s.Size < 1:
		c.errorf(append(at, "size"), "slice size must be at least 1, got %d", s.Size)
	case int64(s.Size) > int64(pods):
		c.errorf(append(at, "size"), "slice size %d is larger than the gang's %d pods: Kueue's webhook refuses the Job (kueue.x-k8s.io/podset-slice-size: must not be greater than pod set count %d)", s.Size, pods, pods)
	case pods%s.Size != 0:
		c.errorf(append(at, "size"), "slice size %d does not divide the gang's %d pods: Kueue places whole slices (%d of them), and the other %d pods belong to none", s.Size, pods, pods/s.Size, pods%s.Size)
	}
	if levelDepth(s.Level) < levelDepth(cl.Topology.Level) {
		c.errorf(append(at, "level"), "slice level %q is above the gang's level %q: Kueue refuses to place it (podset slice topology ... is above the podset topology ...); a slice sits within one domain of the gang's", s.Level, cl.Topology.Level)
	}
}

// levelDepth orders topology levels from the widest network layer (1) to
// the host (5).
func levelDepth(level string) int {
	if n, ok := strings.CutPrefix(level, spec.LevelNetworkLayer); ok {
		if k, err := strconv.Atoi(n); err == nil {
			return k
		}
	}
	return 5
}

func (c *checker) anyTopologyPool() bool {
	for _, p := range c.f.Pools {
		if p.Topology {
			return true
		}
	}
	return false
}

// topologyDomains checks a pool's declared domain sizes: on a TAS pool,
// at levels its types are labelled with, and nested, each domain of a
// level holding whole domains of the narrower ones, as EC2's network
// nodes do.
func (c *checker) topologyDomains(name string, pool spec.Pool) {
	if len(pool.TopologyDomains) == 0 {
		return
	}
	at := p("pools", name, "topologyDomains")
	if !pool.Topology {
		c.errorf(at, "topologyDomains needs topology: true: only a TAS pool's ResourceFlavor names a Topology")
		return
	}
	layers := -1
	for _, it := range pool.InstanceTypes {
		if in, ok := c.cat[it]; ok && (layers < 0 || in.NetworkLayers < layers) {
			layers = in.NetworkLayers
		}
	}
	levels := spec.Keys(pool.TopologyDomains)
	slices.SortFunc(levels, func(a, b string) int { return levelDepth(a) - levelDepth(b) })
	for _, l := range levels {
		if !strings.HasPrefix(l, spec.LevelNetworkLayer) || levelDepth(l) < 1 || levelDepth(l) > 4 || pool.TopologyDomains[l] < 1 {
			c.errorf(append(at, l), "%q: %d nodes: topologyDomains takes network-layer-1 to network-layer-4, each at least 1 node", l, pool.TopologyDomains[l])
			return
		}
	}
	for i, l := range levels {
		if d := levelDepth(l); layers >= 0 && d > layers {
			c.errorf(append(at, l), "level %q is not in the pool's Topology: its types get %d network layers", l, layers)
			continue
		}
		n := pool.TopologyDomains[l]
		for _, narrower := range levels[i+1:] {
			if m := pool.TopologyDomains[narrower]; n%m != 0 {
				c.errorf(append(at, l), "%s holds %d nodes, not a multiple of %s's %d: a domain of a level holds whole domains of the narrower ones", l, n, narrower, m)
				break
			}
		}
	}
}
