package fleetgen

import (
	"fmt"
	"strconv"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// A team owns a run of pools, and its classes select them by label, as
// in a real fleet: a class lands on its team's pools of its product only,
// which keeps a tenant's Kueue flavors under the CRD's 64 at any size.
const (
	teamLabel    = "example.com/team"
	poolsPerTeam = 10
)

// bounds are the smallest node among the pools of one GPU product ("" for
// CPU pools): a class sized within them fits every pool it can be admitted
// to, so neither the scheduler nor Kueue strands it.
type bounds struct {
	gpus, gpuMemGiB, vcpu, memGiB int64
}

// buildable fills in classes and tenants that the checker passes: every
// class lands on its home pool, and every tenant's quota holds a whole
// workload of each of its classes in each flavor.
func (g *gen) buildable(f *spec.Fleet, size Size) {
	cat := aws.Catalog(nil)
	pools := make([]spec.Pool, size.Pools)
	byProduct := map[string]bounds{}
	// Kueue admits a gang to one flavor, so every pool of the team and
	// product it lands on must hold it: one pod per node at least.
	maxGang := map[string]int32{}
	for i := range pools {
		p := f.Pools[poolName(i)]
		p.Labels = map[string]string{teamLabel: team(i)}
		f.Pools[poolName(i)], pools[i] = p, p
		product, b := smallest(cat, p.InstanceTypes)
		if have, ok := byProduct[product]; ok {
			b = bounds{min(have.gpus, b.gpus), min(have.gpuMemGiB, b.gpuMemGiB), min(have.vcpu, b.vcpu), min(have.memGiB, b.memGiB)}
		}
		byProduct[product] = b
		k := team(i) + "/" + product
		if have, ok := maxGang[k]; !ok || p.Size.Max < have {
			maxGang[k] = p.Size.Max
		}
	}
	classes := make([]string, size.Classes)
	homes := map[string]int{}
	for i := range classes {
		classes[i] = fmt.Sprintf("class-%d", i)
		home := i * size.Pools / size.Classes
		product, _ := smallest(cat, pools[home].InstanceTypes)
		f.Classes[classes[i]] = g.homedClass(pools[home], home, product, byProduct[product], maxGang[team(home)+"/"+product])
		homes[classes[i]] = home
	}
	cohorts := max(2, size.Tenants/50)
	f.Cohorts = map[string]spec.Cohort{}
	for k := 0; k < cohorts; k++ {
		w := float64(1 + k%3)
		f.Cohorts[fmt.Sprintf("cohort-%d", k)] = spec.Cohort{Parent: fmt.Sprintf("org-%d", k%max(1, cohorts/10)), Weight: &w}
	}
	for i := 0; i < size.Tenants; i++ {
		f.Tenants[fmt.Sprintf("tenant-%d", i)] = g.fundedTenant(i, cohorts, classes, f.Classes, func(class string) int64 {
			return int64(teamPools(homes[class], size.Pools))
		})
	}
}

func poolName(i int) string { return fmt.Sprintf("pool-%d", i) }

func team(pool int) string { return "team-" + strconv.Itoa(pool/poolsPerTeam) }

// teamPools is how many pools the team of a pool owns.
func teamPools(pool, pools int) int {
	start := pool / poolsPerTeam * poolsPerTeam
	return min(poolsPerTeam, pools-start)
}

// smallest is the GPU product of a pool and its smallest node.
func smallest(cat catalog.Catalog, types []string) (string, bounds) {
	var product string
	b := bounds{gpus: 1 << 30, gpuMemGiB: 1 << 30, vcpu: 1 << 30, memGiB: 1 << 30}
	for _, t := range types {
		in := cat[t]
		b.vcpu, b.memGiB = min(b.vcpu, in.VCPU), min(b.memGiB, int64(in.MemoryGiB))
		if in.GPU != nil {
			product = in.GPU.Product
			b.gpus, b.gpuMemGiB = min(b.gpus, in.GPU.Count), min(b.gpuMemGiB, in.GPU.MemoryGiB)
		}
	}
	return product, b
}

// homedClass is a class sized to land on every pool of its product that
// its team owns, home among them.
func (g *gen) homedClass(home spec.Pool, homeIndex int, product string, b bounds, maxGang int32) spec.Class {
	c := spec.Class{
		Priority:     g.pick([]string{"critical", "batch", "dev"}),
		Kind:         keys.KindDeployment,
		Replicas:     int32(1 + g.r.IntN(int(min(4, home.Size.Max)))),
		Container:    "main",
		Image:        "registry.k8s.io/pause:3.10",
		NodeSelector: map[string]string{teamLabel: team(homeIndex)},
		Resources: spec.Resources{
			CPU:    spec.Quantity(strconv.FormatInt(1+g.r.Int64N(max(1, b.vcpu/2)), 10)),
			Memory: spec.Quantity(fmt.Sprintf("%dGi", 1+g.r.Int64N(min(64, b.memGiB/2)))),
		},
	}
	c.Capacity = g.pick([]string{spec.OnDemand, spec.PreferSpot, spec.AnyCap})
	if home.Capacity == spec.Spot {
		c.Capacity = g.pick([]string{spec.Spot, spec.PreferSpot, spec.AnyCap})
	}
	if product != "" {
		c.GPU = &spec.GPU{Count: 1, Products: []string{product}}
		for _, n := range []int64{2, 4, 8} {
			if n <= b.gpus && g.chance(0.5) {
				c.GPU.Count = n
			}
		}
		if m := g.num("16", "24", "40", "48", "80"); g.chance(0.3) && m <= b.gpuMemGiB {
			c.GPU.MinMemoryGiB = m
		}
	}
	if g.chance(0.35) {
		// At one pod per node at least, every pool of its team and
		// product holds the gang.
		c.Kind = keys.KindJob
		gang := int32(1 + g.r.IntN(int(min(6, maxGang))))
		c.Gang = &gang
		// As in a real fleet, batch work never outranks serving.
		if c.Priority == "critical" {
			c.Priority = "batch"
		}
	} else if g.chance(0.2) {
		c.Kind = keys.KindStatefulSet
	}
	if c.Kind != keys.KindJob && g.chance(0.4) {
		c.Spread = &spec.Spread{Zones: spec.Preferred, MaxSkew: int32(1 + g.r.IntN(2))}
		// A hard zone spread needs every zone to hold its share on the
		// home pool: a third of its nodes each, one pod per node at least.
		if len(home.Zones) != 1 && len(home.Zones) != 2 && home.Size.Max >= 3 && g.chance(0.8) {
			c.Spread.Zones = spec.Required
			c.Replicas = min(c.Replicas, home.Size.Max/3)
			if g.chance(0.4) {
				mz := int32(1 + g.r.IntN(3))
				c.Spread.MinZones = &mz
			}
		}
	}
	if c.Kind != keys.KindJob && g.chance(0.2) {
		c.AntiAffinity = spec.Required // replicas never exceed the home pool's nodes
	}
	if g.chance(0.2) {
		// Small, so that a sidecar (restartPolicy Always, which adds to
		// the pod's request) still fits beside the main container.
		// It names no memory, so it gets the tenant's default at
		// admission, which derive's quota split must count.
		c.InitContainers = []spec.InitContainer{{Name: "init", Image: "busybox", CPU: "100m"}}
		if g.chance(0.5) {
			c.InitContainers[0].RestartPolicy = "Always"
		}
	}
	return c
}

// fundedTenant is a tenant whose quota holds a whole workload of each of
// its classes on every pool of the class's team (Kueue splits the quota
// over them), plus some to spare; some borrow in a cohort.
func (g *gen) fundedTenant(i, cohorts int, names []string, classes map[string]spec.Class, flavors func(string) int64) spec.Tenant {
	t := spec.Tenant{Namespaces: []string{fmt.Sprintf("ns-%d", i)}, Defaults: spec.Resources{CPU: "100m", Memory: "256Mi"}}
	n := 1 + g.r.IntN(min(4, len(names)))
	for k := 0; k < n; k++ {
		t.Classes = appendUnique(t.Classes, g.pick(names))
	}
	var gpu, cpu, mem int64
	for _, name := range t.Classes {
		c := classes[name]
		pods := int64(1)
		if c.Gang != nil {
			pods = int64(*c.Gang)
		}
		pods *= flavors(name)
		if c.GPU != nil {
			gpu += pods * c.GPU.Count
		}
		podCPU, _ := strconv.ParseInt(string(c.Resources.CPU), 10, 64)
		var podMem int64
		fmt.Sscanf(string(c.Resources.Memory), "%dGi", &podMem)
		if len(c.InitContainers) > 0 {
			// A sidecar adds its own CPU and its memory, the tenant's
			// default.
			podCPU, podMem = podCPU+1, podMem+1
		}
		cpu, mem = cpu+pods*podCPU, mem+pods*podMem
	}
	gpu = (gpu/8 + 1 + int64(g.r.IntN(4))) * 8
	t.Quota = &spec.Quota{GPU: &gpu, CPU: spec.Quantity(strconv.FormatInt(cpu+int64(10*g.r.IntN(10)), 10)), Memory: spec.Quantity(fmt.Sprintf("%dGi", mem+int64(64*g.r.IntN(8))))}
	if g.chance(0.6) {
		t.Cohort = fmt.Sprintf("cohort-%d", i%cohorts)
		more := int64(8 * (1 + g.r.IntN(3)))
		t.Borrow = &spec.Quota{GPU: &more}
		if g.chance(0.3) {
			w := float64(1 + g.r.IntN(4))
			t.Weight = &w
		}
	}
	return t
}
