package fleetgen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// The features the composed rung must see in combination (issue 46, item
// 5): what a queued unit is, how it asks for GPUs, how it places, and
// where it lands. A unit's features are read from the spec (Features),
// every pair of them is counted over the units that reached kube-scheduler
// (the composed rung's pair table), and a pair no unit reached fails it.
const (
	FeatJob          = "queued Job"
	FeatDeployment   = "Deployment"
	FeatStatefulSet  = "StatefulSet"
	FeatGang         = "gang"
	FeatWaves        = "waves"
	FeatTASRequired  = "TAS required"
	FeatTASPreferred = "TAS preferred"
	FeatDRAWhole     = "DRA whole"
	FeatDRAMIG       = "DRA MIG"
	FeatAntiAffinity = "hostname anti-affinity"
	FeatZoneSpread   = "zone spread"
	FeatZoneGroups   = "zone groups"
	FeatMin0         = "min 0"
	FeatKarpenter    = "Karpenter"
	FeatManaged      = "managed group"
	FeatSpot         = "spot"
	FeatTimeSlicing  = "time-slicing"
	FeatMPS          = "MPS"
	FeatMIG          = "MIG"
	FeatPreemption   = "preemption"
	FeatScopedQuota  = "scoped quota"
)

// AllFeatures lists the features in the pair table's order.
var AllFeatures = []string{
	FeatJob, FeatDeployment, FeatStatefulSet, FeatGang, FeatWaves,
	FeatTASRequired, FeatTASPreferred, FeatDRAWhole, FeatDRAMIG,
	FeatAntiAffinity, FeatZoneSpread, FeatZoneGroups, FeatMin0,
	FeatKarpenter, FeatManaged, FeatSpot, FeatTimeSlicing, FeatMPS, FeatMIG,
	FeatPreemption, FeatScopedQuota,
}

// exclusive are features no one unit can have two of: a unit has one
// kind, a Job runs as a gang or in waves, a request is required or
// preferred, and a pool offers its GPUs one way.
var exclusive = [][]string{
	{FeatJob, FeatDeployment, FeatStatefulSet},
	{FeatGang, FeatWaves},
	{FeatTASRequired, FeatTASPreferred},
	{FeatDRAWhole, FeatDRAMIG, FeatTimeSlicing, FeatMPS, FeatMIG},
}

// implied are features that need another, with why the spec or the
// components refuse the pair otherwise; a pair of a feature with one its
// need excludes is impossible.
var implied = []struct {
	feat, needs, why string
}{
	{FeatGang, FeatJob, "gang needs kind Job (validate/classes.go)"},
	{FeatWaves, FeatJob, "a Job's pods run in waves when it has no gang"},
	{FeatTASRequired, FeatJob, "topology needs kind Job (validate/topology.go)"},
	{FeatTASPreferred, FeatJob, "topology needs kind Job (validate/topology.go)"},
}

// impossible are the other pairs no valid fleet can have, each with the
// rule that refuses it.
var impossible = map[[2]string]string{
	{FeatZoneGroups, FeatKarpenter}: "zoneGroups splits a managed node group; a Karpenter or \"both\" pool is refused (validate/pools.go)",
	{FeatMIG, FeatKarpenter}:        "Karpenter knows no MIG slices: its instance types carry whole GPUs",
	{FeatDRAMIG, FeatKarpenter}:     "Karpenter knows no MIG slices: its instance types carry whole GPUs",
	// Kueue's TAS places by the nodes in its cache
	// (pkg/cache/scheduler/tas_flavor_snapshot.go): a pool that stands at
	// no node, and Karpenter's, which launches for pending pods, offer it
	// none, so a topology request there is never admitted.
	{FeatTASRequired, FeatMin0}:       "Kueue's TAS sees only standing nodes (tas_flavor_snapshot.go)",
	{FeatTASPreferred, FeatMin0}:      "Kueue's TAS sees only standing nodes (tas_flavor_snapshot.go)",
	{FeatTASRequired, FeatKarpenter}:  "Kueue's TAS sees only standing nodes (tas_flavor_snapshot.go)",
	{FeatTASPreferred, FeatKarpenter}: "Kueue's TAS sees only standing nodes (tas_flavor_snapshot.go)",
}

// Impossible says why no unit can have both features, "" if one can.
func Impossible(a, b string) string {
	if a == b {
		return "the same feature"
	}
	for _, g := range exclusive {
		if slices.Contains(g, a) && slices.Contains(g, b) {
			return "mutually exclusive: " + strings.Join(g, ", ")
		}
	}
	for _, im := range implied {
		for _, p := range [][2]string{{a, b}, {b, a}} {
			if p[0] == im.feat && p[1] != im.needs && exclusiveOf(im.needs, p[1]) {
				return im.why
			}
		}
	}
	if why, ok := impossible[[2]string{a, b}]; ok {
		return why
	}
	return impossible[[2]string{b, a}]
}

// exclusiveOf says a and b are of one exclusive group.
func exclusiveOf(a, b string) bool {
	for _, g := range exclusive {
		if slices.Contains(g, a) && slices.Contains(g, b) {
			return true
		}
	}
	return false
}

// Pair is two features, in AllFeatures' order.
type Pair [2]string

func (p Pair) String() string { return p[0] + " × " + p[1] }

// Pairs are every pair of features some unit can have.
func Pairs() []Pair {
	var out []Pair
	for i, a := range AllFeatures {
		for _, b := range AllFeatures[i+1:] {
			if Impossible(a, b) == "" {
				out = append(out, Pair{a, b})
			}
		}
	}
	return out
}

// PairTable counts, for each possible pair, the units that had both.
type PairTable map[Pair]int

// Add counts one unit with these features.
func (t PairTable) Add(feats []string) {
	for i, a := range AllFeatures {
		if !slices.Contains(feats, a) {
			continue
		}
		for _, b := range AllFeatures[i+1:] {
			if slices.Contains(feats, b) {
				t[Pair{a, b}]++
			}
		}
	}
}

// Empty lists the possible pairs no unit reached.
func (t PairTable) Empty() []Pair {
	var out []Pair
	for _, p := range Pairs() {
		if t[p] == 0 {
			out = append(out, p)
		}
	}
	return out
}

// String is the table, a line per feature: the units that reached each
// pair with a later feature ("-" where the pair is impossible).
func (t PairTable) String() string {
	var b strings.Builder
	w := 0
	for i, f := range AllFeatures {
		w = max(w, len(fmt.Sprintf("%d %s", i+1, f)))
	}
	fmt.Fprintf(&b, "%-*s", w, "")
	for i := range AllFeatures {
		fmt.Fprintf(&b, " %4d", i+1)
	}
	b.WriteString("\n")
	for i, a := range AllFeatures {
		fmt.Fprintf(&b, "%-*s", w, fmt.Sprintf("%d %s", i+1, a))
		for j, c := range AllFeatures {
			switch {
			case j <= i:
				b.WriteString("     ")
			case Impossible(a, c) != "":
				b.WriteString("    -")
			default:
				fmt.Fprintf(&b, " %4d", t[Pair{a, c}])
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Features are the features of a queued unit of class, in tenant's
// namespace, pinned to pool: its kind and shape, its GPU request as the
// pool serves it, its placement rules, the pool's provisioning, and its
// tenant's priorities and quotas.
func Features(f *spec.Fleet, tenant, class, pool string) []string {
	c, ok := f.Classes[class]
	if !ok {
		return nil
	}
	p := f.Pools[pool]
	t := f.Tenants[tenant]
	var out []string
	switch c.Kind {
	case keys.KindJob:
		out = append(out, FeatJob)
		if c.Gang != nil {
			out = append(out, FeatGang)
		} else {
			out = append(out, FeatWaves)
		}
	case keys.KindDeployment:
		out = append(out, FeatDeployment)
	case keys.KindStatefulSet:
		out = append(out, FeatStatefulSet)
	}
	if c.Topology != nil {
		if c.Topology.Mode == spec.Required {
			out = append(out, FeatTASRequired)
		} else {
			out = append(out, FeatTASPreferred)
		}
	}
	if c.GPU != nil {
		switch {
		case (c.GPU.API == spec.GPUAPIDRA || c.GPU.API == "" && f.Cluster.GPUAPI == spec.GPUAPIDRA) && c.GPU.MIG != "":
			out = append(out, FeatDRAMIG)
		case c.GPU.API == spec.GPUAPIDRA || c.GPU.API == "" && f.Cluster.GPUAPI == spec.GPUAPIDRA:
			out = append(out, FeatDRAWhole)
		case c.GPU.MIG != "":
			out = append(out, FeatMIG)
		case c.GPU.Shared && p.Sharing != nil && p.Sharing.Strategy == "mps":
			out = append(out, FeatMPS)
		case c.GPU.Shared && p.Sharing != nil:
			out = append(out, FeatTimeSlicing)
		}
	}
	if c.AntiAffinity == spec.Required || c.Spread != nil && c.Spread.Hosts == spec.Required {
		out = append(out, FeatAntiAffinity)
	}
	if c.Spread != nil && c.Spread.Zones != "" {
		out = append(out, FeatZoneSpread)
	}
	if p.ZoneGroups {
		out = append(out, FeatZoneGroups)
	}
	if p.Size.Min == 0 {
		out = append(out, FeatMin0)
	}
	if p.HasNodePool() {
		out = append(out, FeatKarpenter)
	}
	if p.HasNodeGroup() {
		out = append(out, FeatManaged)
	}
	if p.Capacity == spec.Spot {
		out = append(out, FeatSpot)
	}
	if preempts(f, t, c) {
		out = append(out, FeatPreemption)
	}
	if _, ok := t.PriorityQuotas[c.Priority]; ok {
		out = append(out, FeatScopedQuota)
	}
	return out
}

// preempts says Kueue may preempt another of the tenant's classes to
// admit this one: its ClusterQueue preempts within itself (derive's
// preemption: withinClusterQueue LowerPriority only where no queued class
// of the tenant has a priority that never preempts), and another queued
// class's priority is lower.
func preempts(f *spec.Fleet, t spec.Tenant, c spec.Class) bool {
	pr := f.Priorities[c.Priority]
	lower := false
	for _, o := range t.Classes {
		oc, ok := f.Classes[o]
		if !ok || !oc.Queued() {
			continue
		}
		if f.Priorities[oc.Priority].Preemption == "Never" {
			return false
		}
		lower = lower || f.Priorities[oc.Priority].Value < pr.Value
	}
	return c.Queued() && lower
}
