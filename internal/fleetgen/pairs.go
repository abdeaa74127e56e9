package fleetgen

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// The pair generator (PairFleets) builds fleets whose queued units cover
// every possible pair of features (features.go) with few fleets: a
// covering array, not the full product. Each row is one queued class on a
// pool of its own, in a tenant of its own, the class sized to land there
// and held there by a label only its pool carries, so that the pool it
// reaches is the one its row describes. Rows are chosen greedily (AETG):
// of some random valid rows, the one covering most pairs not yet covered,
// until every pair is.

// pairRow is one unit's features, as factors.
type pairRow struct {
	kind       string // "gang", "waves", Deployment or StatefulSet
	tas        string // "", Required or Preferred
	gpu        string // "" (whole GPUs through the device plugin), or FeatDRAWhole, FeatDRAMIG, FeatTimeSlicing, FeatMPS, FeatMIG
	anti       bool
	spread     bool
	zoneGroups bool
	min0       bool
	prov       string // Managed, Karpenter or Both
	spot       bool
	preempt    bool
	scoped     bool
}

var (
	rowKinds = []string{"gang", "waves", keys.KindDeployment, keys.KindStatefulSet}
	rowTAS   = []string{"", spec.Required, spec.Preferred}
	rowGPUs  = []string{"", FeatDRAWhole, FeatDRAMIG, FeatTimeSlicing, FeatMPS, FeatMIG}
	rowProvs = []string{spec.Managed, spec.Karpenter, spec.Both}
)

// valid says the row makes a fleet gpufleet accepts, whose unit Kueue can
// admit: the rules behind Impossible, and the spec's own (validate).
func (r pairRow) valid() bool {
	job := r.kind == "gang" || r.kind == "waves"
	dra := r.gpu == FeatDRAWhole || r.gpu == FeatDRAMIG
	mig := r.gpu == FeatMIG || r.gpu == FeatDRAMIG
	switch {
	case r.tas != "" && (!job || r.prov != spec.Managed || r.min0):
		return false
	case r.zoneGroups && r.prov != spec.Managed:
		return false
	case r.prov == spec.Karpenter && !r.min0, r.prov == spec.Both && r.min0:
		return false // Karpenter keeps no minimum; "both" a baseline of one
	case mig && r.prov != spec.Managed:
		return false
	case dra && r.prov == spec.Both:
		return false // validate/dra.go: "both" is not built for DRA pools
	}
	return true
}

func (g *gen) randomRow() pairRow {
	for {
		r := pairRow{
			kind: g.pick(rowKinds), tas: g.pick(rowTAS), gpu: g.pick(rowGPUs),
			anti: g.chance(0.5), spread: g.chance(0.5), zoneGroups: g.chance(0.5), min0: g.chance(0.5),
			prov: g.pick(rowProvs), spot: g.chance(0.5), preempt: g.chance(0.5), scoped: g.chance(0.5),
		}
		if r.valid() {
			return r
		}
	}
}

// pairTypes are the instance types of a row's pool, by its GPU feature
// and whether it needs EC2 topology's labels (TAS).
var pairTypes = map[string][2]string{
	"":              {"g5.12xlarge", "g6e.12xlarge"},
	FeatDRAWhole:    {"g6.12xlarge", "g6e.12xlarge"},
	FeatDRAMIG:      {"p4de.24xlarge", "p4de.24xlarge"},
	FeatTimeSlicing: {"g6.xlarge", "g6e.xlarge"},
	FeatMPS:         {"g5.xlarge", "g6e.xlarge"},
	FeatMIG:         {"p4d.24xlarge", "p4d.24xlarge"},
}

// rowLabel holds a row's class on its own pool.
const rowLabel = "example.com/row"

// build is the row's pool, class and tenant, and the lower-priority class
// a preempting row's tenant also runs, named by n.
func (r pairRow) build(n int) (spec.Pool, spec.Class, spec.Tenant, *spec.Class) {
	tas := 0
	if r.tas != "" {
		tas = 1
	}
	p := spec.Pool{
		InstanceTypes: []string{pairTypes[r.gpu][tas]},
		Capacity:      spec.OnDemand,
		Size:          spec.Size{Min: 1, Max: 3},
		Provisioner:   r.prov,
		ZoneGroups:    r.zoneGroups,
		Topology:      r.tas != "",
		Labels:        map[string]string{rowLabel: fmt.Sprint(n)},
	}
	if r.spot {
		p.Capacity = spec.Spot
	}
	switch {
	case r.min0:
		p.Size.Min = 0
	case r.tas != "":
		p.Size.Min = p.Size.Max // Kueue's TAS places on standing nodes
	}
	if !r.spread && !r.zoneGroups {
		p.Zones = []string{zones[n%len(zones)]}
	}
	pods := int32(3)
	c := spec.Class{
		Priority: "dev", Kind: r.kind, Replicas: pods, Capacity: p.Capacity,
		Container: "main", Image: "registry.k8s.io/pause:3.10",
		Resources:    spec.Resources{CPU: "1", Memory: "4Gi"},
		NodeSelector: map[string]string{rowLabel: fmt.Sprint(n)},
		GPU:          &spec.GPU{Count: 2},
	}
	switch r.kind {
	case "gang":
		c.Kind, c.Gang = keys.KindJob, &pods
	case "waves":
		c.Kind = keys.KindJob
	default:
		queued := true
		c.Queue = &queued
	}
	switch r.gpu {
	case FeatDRAWhole:
		p.GPUAPI, c.GPU.API = spec.GPUAPIDRA, spec.GPUAPIDRA
	case FeatDRAMIG:
		p.GPUAPI, p.MIG = spec.GPUAPIDRA, "all-1g.10gb"
		c.GPU = &spec.GPU{Count: 1, MIG: "1g.10gb", API: spec.GPUAPIDRA}
	case FeatTimeSlicing:
		p.Sharing = &spec.Sharing{Strategy: "time-slicing", Replicas: 4}
		c.GPU = &spec.GPU{Count: 1, Shared: true}
	case FeatMPS:
		p.Sharing = &spec.Sharing{Strategy: "mps", Replicas: 4}
		c.GPU = &spec.GPU{Count: 1, Shared: true}
	case FeatMIG:
		p.MIG = "all-1g.5gb"
		c.GPU = &spec.GPU{Count: 1, MIG: "1g.5gb"}
	}
	if r.tas != "" {
		c.Topology = &spec.Topology{Mode: r.tas, Level: spec.LevelNetworkLayer + "3"}
	}
	if r.anti {
		c.AntiAffinity = spec.Required
	}
	if r.spread {
		c.Spread = &spec.Spread{Zones: spec.Required, MaxSkew: 1}
	}
	if r.preempt {
		c.Priority = "batch"
	}
	gpu := int64(64)
	q := spec.Quota{GPU: &gpu, CPU: "256", Memory: "2048Gi"}
	t := spec.Tenant{Namespaces: []string{fmt.Sprintf("ns-r%d", n)}, Classes: []string{fmt.Sprintf("class-r%d", n)},
		Defaults: spec.Resources{CPU: "100m", Memory: "256Mi"}, Quota: &q}
	if r.scoped {
		t.PriorityQuotas = map[string]spec.Quota{c.Priority: q}
	}
	var victim *spec.Class
	if r.preempt {
		v := c
		v.Priority = "low" // below batch, and preempting, so that the queue preempts
		victim = &v
		t.Classes = append(t.Classes, fmt.Sprintf("victim-r%d", n))
	}
	return p, c, t, victim
}

// features are the row's unit's features, as Features reads them from
// the fleet the row builds.
func (r pairRow) features() []string {
	f := pairFleet(0)
	r.add(f, 0)
	return Features(f, "tenant-r0", "class-r0", "pool-r0")
}

// add puts the row's pool, classes and tenant into f, as row n.
func (r pairRow) add(f *spec.Fleet, n int) {
	p, c, t, victim := r.build(n)
	f.Pools[fmt.Sprintf("pool-r%d", n)] = p
	f.Classes[fmt.Sprintf("class-r%d", n)] = c
	if victim != nil {
		f.Classes[fmt.Sprintf("victim-r%d", n)] = *victim
	}
	f.Tenants[fmt.Sprintf("tenant-r%d", n)] = t
}

func pairFleet(k int) *spec.Fleet {
	return &spec.Fleet{
		Cluster: spec.Cluster{Provider: "eks", Name: fmt.Sprintf("pairs-%d", k), Region: "us-east-1", Version: "1.36", Zones: zones,
			Karpenter: &spec.KarpenterConfig{DRA: true}},
		Priorities: map[string]spec.Priority{
			"batch": {Value: 10000, Preemption: "PreemptLowerPriority"},
			"dev":   {Value: 100, Default: true, Preemption: "Never"},
			"low":   {Value: 10, Preemption: "PreemptLowerPriority"},
		},
		Pools: map[string]spec.Pool{}, Classes: map[string]spec.Class{}, Tenants: map[string]spec.Tenant{},
	}
}

// PairOptions tune PairFleets.
type PairOptions struct {
	// Rows is how many rows a fleet holds.
	Rows int
	// Without leaves a feature out of every row (a test's deliberate
	// gap: the pair table must then find its pairs empty).
	Without string
}

// PairFleets are fleets whose rows cover every possible pair of features,
// from the seed: the same seed gives the same fleets.
func PairFleets(seed uint64, opts PairOptions) []*spec.Fleet {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	rows := g.coveringRows(opts.Without)
	var out []*spec.Fleet
	for i := 0; i < len(rows); i += opts.Rows {
		f := pairFleet(len(out) + 1)
		tight := ""
		for n, r := range rows[i:min(i+opts.Rows, len(rows))] {
			r.add(f, n)
			if r.gpu == FeatDRAWhole && tight == "" {
				tight = fmt.Sprintf("class-r%d", n)
			}
		}
		if tight != "" {
			// A tenant whose quota holds one GPU runs a DRA class too:
			// quota admission refuses its claims' devices
			// (<class>.deviceclass.resource.k8s.io/devices), as the
			// composed rung's quota stage judges QuotaFit.
			one := int64(1)
			f.Tenants["tenant-tight"] = spec.Tenant{Namespaces: []string{"ns-tight"}, Classes: []string{tight},
				Defaults: spec.Resources{CPU: "100m", Memory: "256Mi"}, Quota: &spec.Quota{GPU: &one, CPU: "256", Memory: "2048Gi"}}
		}
		if len(out) == 0 {
			gatedTenant(f)
		}
		out = append(out, f)
	}
	return out
}

// gatedTenant adds to f a tenant whose ClusterQueue preempts a queued
// Deployment of 4 one-GPU replicas for a gang of 4 one-GPU pods, under a
// namespace quota of 6 GPUs: each holds alone, not the gang beside the
// Deployment's pods the ReplicaSet recreates gated (KueueGatedQuota, which
// the composed rung's quota stage judges).
func gatedTenant(f *spec.Fleet) {
	sel := map[string]string{rowLabel: "gated"}
	f.Pools["pool-gated"] = spec.Pool{InstanceTypes: []string{"g5.12xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 4}, Labels: sel}
	queued, gang := true, int32(4)
	base := spec.Class{Capacity: spec.OnDemand, Container: "main", Image: "registry.k8s.io/pause:3.10",
		Resources: spec.Resources{CPU: "1", Memory: "4Gi"}, NodeSelector: sel, GPU: &spec.GPU{Count: 1}}
	serve, train := base, base
	serve.Priority, serve.Kind, serve.Replicas, serve.Queue = "low", keys.KindDeployment, 4, &queued
	train.Priority, train.Kind, train.Replicas, train.Gang = "batch", keys.KindJob, 4, &gang
	f.Classes["gated-serve"], f.Classes["gated-train"] = serve, train
	six := int64(6)
	f.Tenants["tenant-gated"] = spec.Tenant{Namespaces: []string{"ns-gated"}, Classes: []string{"gated-serve", "gated-train"},
		Defaults: spec.Resources{CPU: "100m", Memory: "256Mi"}, Quota: &spec.Quota{GPU: &six, CPU: "256", Memory: "2048Gi"}}
}

// coveringRows chooses rows greedily until every possible pair is
// covered, or no candidate covers another (a feature left out).
func (g *gen) coveringRows(without string) []pairRow {
	covered := PairTable{}
	var rows []pairRow
	for misses := 0; misses < 16; {
		var best pairRow
		bestNew := 0
		for range 64 {
			r := g.randomRow()
			feats := r.features()
			if without != "" && slices.Contains(feats, without) {
				continue
			}
			fresh := 0
			t := PairTable{}
			t.Add(feats)
			for p := range t {
				if covered[p] == 0 && Impossible(p[0], p[1]) == "" {
					fresh++
				}
			}
			if fresh > bestNew {
				best, bestNew = r, fresh
			}
		}
		if bestNew == 0 {
			misses++
			continue
		}
		misses = 0
		rows = append(rows, best)
		covered.Add(best.features())
	}
	return rows
}
