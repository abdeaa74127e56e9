package fleetgen

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// need is one pod's request, and a workload's pods, for sizing quotas.
type need struct {
	cpuMilli, memMi, gpus int64
	pods                  int64
}

// fullClass derives a class from its home pool: its request divides the
// node into perNode pods exactly (the binding resource at allocatable / n,
// to the unit), and its pods are about what the pool holds at max size.
// One class in five is pushed one unit past a limit.
func (g *gen) fullClass(home *fullPool, pools []*fullPool) (spec.Class, need) {
	alloc := home.node.Allocatable()
	cpuMilli := alloc.Cpu().MilliValue()
	memMi := alloc.Memory().Value() >> 20
	perNode := g.num("1", "1", "2", "3", "4")
	c := spec.Class{
		Priority:  g.pick([]string{"critical", "batch", "dev"}),
		Kind:      keys.KindDeployment,
		Replicas:  1,
		Container: "main",
		Image:     "registry.k8s.io/pause:3.10",
	}
	// Which resource binds: the GPU on GPU pools mostly, else cpu or memory.
	bind := g.pick([]string{"cpu", "memory"})
	if home.gpus > 0 && g.chance(0.7) {
		bind = "gpu"
	}
	perturb := g.chance(0.2)
	share := func(total int64, binding bool) int64 {
		if binding {
			v := max(1, total/perNode)
			if perturb {
				v++ // one unit past what perNode pods leave
			}
			return v
		}
		return max(1, total/(perNode*(1+g.r.Int64N(3))))
	}
	n := need{cpuMilli: share(cpuMilli, bind == "cpu"), memMi: share(memMi, bind == "memory")}
	c.Resources = spec.Resources{CPU: spec.Quantity(fmt.Sprintf("%dm", n.cpuMilli)), Memory: spec.Quantity(fmt.Sprintf("%dMi", n.memMi))}
	if home.gpus > 0 {
		count := share(home.gpus, bind == "gpu")
		c.GPU = gpuFor(home, count)
		if home.gpuRes == "" {
			n.gpus = count
		}
		// Pinned to its product or not: unpinned, it also meets the other
		// pools' GPU counts, a refusal on resources rather than affinity.
		if c.GPU.MIG == "" && !c.GPU.Shared && g.chance(0.2) {
			c.GPU.Products = []string{home.node.GPU.Product}
		}
		if c.GPU.MIG == "" && !c.GPU.Shared && g.chance(0.3) {
			c.GPU.MinMemoryGiB = home.node.GPU.MemoryGiB - g.r.Int64N(2)*home.node.GPU.MemoryGiB/2
		}
		if c.GPU.MIG != "" && g.chance(0.3) {
			c.GPU.Products = []string{home.node.GPU.Product}
		}
	}
	if home.kind == efaPool && g.chance(0.7) {
		c.EFA = max(1, home.node.EFA/perNode)
	}
	g.fullCapacity(&c, home)
	g.fullShape(&c, home, perNode)
	g.fullPlacement(&c, home)
	g.fullExtras(&c)
	n.pods = int64(c.Pods())
	if len(c.InitContainers) > 0 && c.InitContainers[0].RestartPolicy == "Always" {
		n.cpuMilli += 100
	}
	return c, n
}

// fullCapacity matches the home pool's capacity type, or (rarely) not.
func (g *gen) fullCapacity(c *spec.Class, home *fullPool) {
	c.Capacity = g.pick([]string{spec.OnDemand, spec.PreferSpot, spec.AnyCap, spec.AnyCap})
	if home.spec.Capacity == spec.Spot {
		c.Capacity = g.pick([]string{spec.Spot, spec.PreferSpot, spec.AnyCap, spec.AnyCap})
	}
	if g.chance(0.05) {
		c.Capacity = g.pick([]string{spec.OnDemand, spec.Spot})
	}
}

// fullShape picks the kind and sizes the workload around the home pool's
// limits: a gang or replicas of about its capacity, required anti-affinity
// about its node count, spreads on zone and host, alone or together.
func (g *gen) fullShape(c *spec.Class, home *fullPool, perNode int64) {
	capacity := home.nodes() * perNode
	around := func(limit int64) int32 {
		v := limit + g.r.Int64N(3) - 1 // limit - 1, limit or limit + 1
		if g.chance(0.3) {
			v = 1 + g.r.Int64N(max(1, limit))
		}
		return int32(min(max(v, 1), 40))
	}
	switch g.weighted(45, 15, 40) {
	case 1:
		c.Kind = keys.KindStatefulSet
	case 2:
		c.Kind = keys.KindJob
	}
	pods := around(capacity)
	if c.Kind != keys.KindJob && g.chance(0.3) {
		c.AntiAffinity = spec.Required
		pods = around(home.nodes())
	} else if c.Kind != keys.KindJob && g.chance(0.15) {
		c.AntiAffinity = spec.Preferred
	}
	if c.Kind == keys.KindJob {
		c.Gang = &pods
		if g.chance(0.3) {
			q := false
			c.Queue = &q
		}
		if g.chance(0.3) {
			cp := g.chance(0.5)
			c.Checkpoint = &cp
		}
		if g.chance(0.3) {
			b := int32(g.r.IntN(6))
			c.BackoffLimit = &b
		}
	} else {
		c.Replicas = pods
	}
	if g.chance(0.55) {
		s := &spec.Spread{MaxSkew: int32(1 + g.r.IntN(2))}
		modes := []string{"", spec.Required, spec.Required, spec.Preferred}
		for s.Zones == "" && s.Hosts == "" {
			s.Zones, s.Hosts = g.pick(modes), g.pick(modes)
		}
		if s.Zones == spec.Required && g.chance(0.5) {
			// Around the home pool's zones, so that minDomains decides.
			mz := int32(home.zonesOf() + g.r.IntN(3) - 1)
			s.MinZones = &mz
			if mz < 1 {
				s.MinZones = nil
			}
		}
		c.Spread = s
	}
}

// fullPlacement adds the escape hatches, aimed at the home pool: its
// label selected, its taint tolerated (rightly or not), a preference.
func (g *gen) fullPlacement(c *spec.Class, home *fullPool) {
	if v, ok := home.spec.Labels[teamLabel]; ok && g.chance(0.3) {
		if g.chance(0.5) {
			c.NodeSelector = map[string]string{teamLabel: v}
		} else {
			c.Affinity.Required = []spec.NodeSelectorTerm{{MatchExpressions: []spec.Requirement{{Key: teamLabel, Operator: "In", Values: []string{v}}}}}
		}
	}
	for _, t := range home.spec.Taints {
		if !g.chance(0.85) {
			continue
		}
		tol := spec.Toleration{Key: t.Key, Operator: "Equal", Value: t.Value, Effect: t.Effect}
		switch {
		case g.chance(0.2):
			tol = spec.Toleration{Key: t.Key, Operator: "Exists"}
		case g.chance(0.1):
			tol.Value = "z" // wrong value
		case g.chance(0.1) && t.Effect != "NoSchedule":
			tol.Effect = "NoSchedule" // wrong effect
		}
		if tol.Effect == "NoExecute" && g.chance(0.3) {
			s := int64(300)
			tol.TolerationSeconds = &s
		}
		c.Tolerations = append(c.Tolerations, tol)
	}
	if g.chance(0.2) {
		c.Affinity.Preferred = []spec.PreferredTerm{{Weight: int32(1 + g.r.IntN(100)), Term: spec.NodeSelectorTerm{MatchExpressions: []spec.Requirement{{Key: keys.LabelZone, Operator: "In", Values: []string{g.pick(zones)}}}}}}
	}
}

// fullExtras sets the fields that do not decide placement but must still
// compile: priorities, schedulers, init containers, sidecars, overhead.
func (g *gen) fullExtras(c *spec.Class) {
	if c.Kind == keys.KindJob && c.Priority == "critical" {
		c.Priority = "batch"
	}
	switch g.weighted(80, 8, 8, 4) {
	case 1:
		c.SchedulerProfile = "binpack"
	case 2:
		c.SchedulerProfile = "spread"
	case 3:
		c.SchedulerName = "my-scheduler"
	}
	if g.chance(0.2) {
		s := int64(30 + g.r.IntN(600))
		c.CheckpointSecs = &s
	}
	if g.chance(0.2) {
		ic := spec.InitContainer{Name: "init", Image: "busybox", CPU: "100m", Memory: "64Mi"}
		if g.chance(0.5) {
			ic.RestartPolicy = string(corev1.ContainerRestartPolicyAlways)
		}
		c.InitContainers = []spec.InitContainer{ic}
	}
	if g.chance(0.05) {
		c.RuntimeClass = "kata"
		c.Overhead = spec.Resources{CPU: "250m", Memory: "160Mi"}
	}
}
