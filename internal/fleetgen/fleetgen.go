// Package fleetgen generates valid, realistic fleet specs from a seed: mixed
// GPU products, spot and on-demand, zones, gangs, spreads, quotas and the
// escape hatches that make placement hard to get right. The differential
// test against kube-scheduler and the benchmarks share it.
package fleetgen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// Size is how big a fleet to generate.
type Size struct {
	Name                    string
	Pools, Classes, Tenants int
}

// Sizes used by the benchmarks.
var (
	S  = Size{"S", 10, 8, 20}
	M  = Size{"M", 50, 30, 200}
	L  = Size{"L", 300, 150, 1000}
	XL = Size{"XL", 3000, 1500, 10000}
)

// Options tune what a fleet contains.
type Options struct {
	// Tricky adds the escape hatches that differ from the derived policy:
	// extra taints of every effect, tolerations with right and wrong
	// values, Gt/Lt and multi-term affinity on labels present or missing.
	Tricky bool
	// Buildable sizes every class to land and every tenant's quota to
	// hold its classes, so the fleet builds with no checker error (and the
	// benchmarks time a build that writes its tree); pools belong to teams
	// and cohorts form a hierarchy. It leaves out Tricky's escape hatches.
	Buildable bool
	// Queues makes most classes queued Jobs (gangs near quota limits) and
	// gives tenants what Kueue admits by: a two-level cohort tree with
	// weights, borrowing and partial lending of any resource, and
	// per-pool quotas. The Kueue differential uses it.
	Queues bool
	// Composed, with Queues, adds queued Deployments and StatefulSets,
	// hard spreads and anti-affinity on queued workloads, and Jobs that
	// run in waves (composed.go): the composed differential uses it.
	Composed bool
	// Kinds, with Queues, turns some GPU classes into the ML kinds with
	// roles (JobSet, LeaderWorkerSet, RayJob, RayCluster, PyTorchJob),
	// queued, a CPU-only role beside GPU ones (kinds.go): the Kueue
	// differential uses it.
	Kinds bool
	// Full covers the whole spec, each class derived from a pool it fits
	// and some pushed just past a limit (see full.go). It ignores the
	// other options.
	Full bool
}

var zones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

var instanceFamilies = [][]string{
	{"g4dn.xlarge", "g4dn.2xlarge"}, {"g4dn.12xlarge"},
	{"g5.xlarge", "g5.2xlarge"}, {"g5.12xlarge"}, {"g5.48xlarge"},
	{"g6.xlarge", "g6.2xlarge"}, {"g6.12xlarge"},
	{"g6e.xlarge"}, {"p4d.24xlarge"}, {"p4de.24xlarge"}, {"p5.48xlarge"}, {"p5e.48xlarge", "p5en.48xlarge"},
	{"m7i.xlarge", "m7i.2xlarge"}, {"m7i.4xlarge"}, {"c7i.2xlarge"}, {"r7i.2xlarge"},
}

var products = []string{"T4", "A10G", "L4", "L40S", "A100", "H100", "H200"}

type gen struct {
	r    *rand.Rand
	opts Options
}

func (g *gen) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) num(choices ...string) int64 {
	n, _ := strconv.ParseInt(g.pick(choices), 10, 64)
	return n
}

// Generate returns a fleet of the given size; the same seed gives the
// same fleet.
func Generate(seed uint64, size Size, opts Options) *spec.Fleet {
	if opts.Buildable {
		opts.Tricky = false
	}
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), opts: opts}
	f := &spec.Fleet{
		Cluster: spec.Cluster{Provider: "eks", Name: fmt.Sprintf("gen-%d", seed), Region: "us-east-1", Version: "1.36", Zones: zones},
		Priorities: map[string]spec.Priority{
			"critical": {Value: 1000000, Preemption: "PreemptLowerPriority"},
			"batch":    {Value: 10000, Preemption: "PreemptLowerPriority"},
			"dev":      {Value: 100, Default: true, Preemption: "Never"},
		},
		Pools:   map[string]spec.Pool{},
		Classes: map[string]spec.Class{},
		Tenants: map[string]spec.Tenant{},
	}
	if opts.Full {
		g.full(f, size)
		return f
	}
	for i := 0; i < size.Pools; i++ {
		f.Pools[fmt.Sprintf("pool-%d", i)] = g.pool(i)
	}
	if opts.Buildable {
		g.buildable(f, size)
		return f
	}
	classNames := make([]string, size.Classes)
	for i := range classNames {
		classNames[i] = fmt.Sprintf("class-%d", i)
		f.Classes[classNames[i]] = g.class()
	}
	for i := 0; i < size.Tenants; i++ {
		f.Tenants[fmt.Sprintf("tenant-%d", i)] = g.tenant(i, classNames)
	}
	if opts.Queues {
		g.queues(f)
		if opts.Composed {
			g.composed(f)
		}
		if opts.Kinds {
			g.kinds(f)
		}
	}
	return f
}

// JSON encodes a fleet as a spec file gpufleet loads.
func JSON(f *spec.Fleet) []byte {
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		panic(err) // plain data; cannot fail
	}
	return b
}

func (g *gen) pool(i int) spec.Pool {
	p := spec.Pool{
		InstanceTypes: instanceFamilies[g.r.IntN(len(instanceFamilies))],
		Capacity:      spec.OnDemand,
		Size:          spec.Size{Min: 0, Max: int32(1 + g.r.IntN(12))},
	}
	if g.chance(0.4) {
		p.Capacity = spec.Spot
	}
	if n := g.r.IntN(4); n > 0 {
		start := g.r.IntN(len(zones))
		for k := 0; k < n; k++ {
			p.Zones = append(p.Zones, zones[(start+k)%len(zones)])
		}
	}
	if g.opts.Tricky {
		if g.chance(0.5) {
			p.Labels = map[string]string{"example.com/tier": strconv.Itoa(g.r.IntN(5)), "example.com/team": g.pick([]string{"a", "b"})}
		}
		if g.chance(0.4) {
			effect := g.pick([]string{"NoSchedule", "NoExecute", "PreferNoSchedule"})
			p.Taints = []spec.Taint{{Key: "example.com/team", Value: g.pick([]string{"a", "b"}), Effect: effect}}
		}
	}
	return p
}

func (g *gen) class() spec.Class {
	c := spec.Class{
		Priority:  g.pick([]string{"critical", "batch", "dev"}),
		Kind:      keys.KindDeployment,
		Replicas:  int32(1 + g.r.IntN(4)),
		Capacity:  g.pick([]string{spec.OnDemand, spec.Spot, spec.PreferSpot, spec.AnyCap}),
		Container: "main",
		Image:     "registry.k8s.io/pause:3.10",
		Resources: spec.Resources{CPU: spec.Quantity(strconv.Itoa(1 + g.r.IntN(16))), Memory: spec.Quantity(fmt.Sprintf("%dGi", 1+g.r.IntN(64)))},
	}
	if g.chance(0.75) {
		// GPU counts around instance limits: 1, 2, 4, 8 and the odd 3 or 9.
		c.GPU = &spec.GPU{Count: g.num("1", "1", "2", "3", "4", "8", "9")}
		if g.chance(0.7) {
			n := 1 + g.r.IntN(3)
			for k := 0; k < n; k++ {
				c.GPU.Products = appendUnique(c.GPU.Products, g.pick(products))
			}
		}
		if g.chance(0.3) {
			c.GPU.MinMemoryGiB = g.num("16", "24", "25", "40", "48", "80", "81")
		}
	}
	if g.chance(0.35) {
		c.Kind = keys.KindJob
		gang := int32(1 + g.r.IntN(6))
		c.Gang = &gang
	} else if g.chance(0.2) {
		c.Kind = keys.KindStatefulSet
	}
	if c.Kind != keys.KindJob && g.chance(0.4) {
		c.Spread = &spec.Spread{Zones: g.pick([]string{spec.Required, spec.Preferred}), MaxSkew: int32(1 + g.r.IntN(2))}
		if c.Spread.Zones == spec.Required && g.chance(0.4) {
			mz := int32(1 + g.r.IntN(3))
			c.Spread.MinZones = &mz
		}
	}
	if c.Kind != keys.KindJob && g.chance(0.2) {
		c.AntiAffinity = spec.Required
	}
	if g.chance(0.2) {
		c.InitContainers = []spec.InitContainer{{Name: "init", Image: "busybox", CPU: spec.Quantity(strconv.Itoa(1 + g.r.IntN(8)))}}
		if g.chance(0.5) {
			c.InitContainers[0].RestartPolicy = "Always"
		}
	}
	if g.opts.Tricky {
		g.trick(&c)
	}
	return c
}

// trick adds escape hatches that may or may not match what pools carry.
func (g *gen) trick(c *spec.Class) {
	if g.chance(0.3) {
		t := spec.Toleration{Key: "example.com/team", Operator: "Equal", Value: g.pick([]string{"a", "b", "c"})}
		if g.chance(0.3) {
			t = spec.Toleration{Key: "example.com/team", Operator: "Exists"}
		}
		if g.chance(0.5) {
			t.Effect = g.pick([]string{"NoSchedule", "NoExecute"})
		}
		c.Tolerations = append(c.Tolerations, t)
	}
	if g.chance(0.05) {
		c.Tolerations = append(c.Tolerations, spec.Toleration{Operator: "Exists"})
	}
	if g.chance(0.3) {
		op := g.pick([]string{"Gt", "Lt"})
		term := spec.NodeSelectorTerm{MatchExpressions: []spec.Requirement{{Key: g.pick([]string{"example.com/tier", "example.com/missing"}), Operator: op, Values: []string{strconv.Itoa(g.r.IntN(5))}}}}
		c.Affinity.Required = append(c.Affinity.Required, term)
		if g.chance(0.5) {
			c.Affinity.Required = append(c.Affinity.Required, spec.NodeSelectorTerm{MatchExpressions: []spec.Requirement{{Key: "example.com/team", Operator: "In", Values: []string{g.pick([]string{"a", "b"})}}}})
		}
	}
	if g.chance(0.1) {
		c.NodeSelector = map[string]string{"example.com/team": g.pick([]string{"a", "b"})}
	}
}

func (g *gen) tenant(i int, classes []string) spec.Tenant {
	t := spec.Tenant{Namespaces: []string{fmt.Sprintf("ns-%d", i)}, Defaults: spec.Resources{CPU: "100m", Memory: "256Mi"}}
	n := 1 + g.r.IntN(min(4, len(classes)))
	for k := 0; k < n; k++ {
		t.Classes = appendUnique(t.Classes, g.pick(classes))
	}
	gpu, more := int64(8*(1+g.r.IntN(8))), int64(8*g.r.IntN(4))
	t.Quota = &spec.Quota{GPU: &gpu, CPU: spec.Quantity(strconv.Itoa(100 * (1 + g.r.IntN(10)))), Memory: spec.Quantity(fmt.Sprintf("%dGi", 512*(1+g.r.IntN(8))))}
	if more > 0 {
		// Borrowing happens within a cohort: two, to have siblings.
		t.Borrow = &spec.Quota{GPU: &more}
		t.Cohort = fmt.Sprintf("cohort-%d", i%2)
	}
	return t
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
