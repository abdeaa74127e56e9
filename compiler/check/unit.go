package check

import (
	"sync"

	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// Unit is how a class's pods are admitted and then placed, as a cluster
// runs it: Kueue admits a queued workload as one unit (a Job's PodSet, a
// StatefulSet's pod group, each pod of a Deployment) and pins it to one
// flavor's pool; only then does kube-scheduler filter the pinned pods.
// The report lists one per queued class and tenant, and one per Job
// class that is not queued.
type Unit struct {
	Class  string `json:"class"`
	Tenant string `json:"tenant,omitempty"`
	Kind   string `json:"kind"`
	// Gang says a Job's pods must all run at once.
	Gang bool `json:"gang,omitempty"`
	// Pods are the workload's: replicas, or a Job's parallelism.
	Pods int32 `json:"pods"`
	// Admission is how many pods Kueue admits as one workload
	// (kueuemodel.UnitPods); 0 where the class is not queued.
	Admission int32 `json:"admission,omitempty"`
	// Flavor is where Kueue admits the first workload on an empty cluster,
	// and Pinned what kube-scheduler places in each flavor Kueue may admit
	// workloads to, in Kueue's order.
	Flavor string   `json:"flavor,omitempty"`
	Pinned []Pinned `json:"pinned,omitempty"`
	// AtOnce is how many of the pods run at once; a Job runs its
	// completions in Waves.
	AtOnce int64 `json:"atOnce"`
	Waves  int64 `json:"waves,omitempty"`
	// Preempts are the tenant's queued classes whose workloads Kueue may
	// preempt within the ClusterQueue to admit this one; those not listed
	// are protected from it.
	Preempts []string `json:"preempts,omitempty"`
	// Topology is how Kueue's topology-aware scheduling places the unit
	// on its flavor's standing nodes, for a unit it places by topology.
	Topology *UnitTopology `json:"topology,omitempty"`
	// PodSets are an ML kind's workload, role by role, as Kueue admits it
	// whole: each pod set's pods and the flavor it is assigned (none for
	// the pod set, and those after it, that Kueue cannot assign).
	PodSets []UnitPodSet `json:"podSets,omitempty"`
}

// UnitPodSet is one pod set of a unit of several.
type UnitPodSet struct {
	Name   string `json:"name"`
	Pods   int32  `json:"pods"`
	Flavor string `json:"flavor,omitempty"`
	// Row is the checker's row of the role's pods (the class's own for
	// its first role), and Pinned what kube-scheduler places of them once
	// Kueue pins them to Flavor, each role on its own, when the whole
	// workload is admitted.
	Row    string  `json:"row"`
	Pinned *Pinned `json:"pinned,omitempty"`
}

// UnitTopology is kueuemodel.TASFit of a unit: what it asks, the nodes
// that stand, and the pods one placement of them fits at worst and at
// best (equal where the domains are known).
type UnitTopology struct {
	Request  string `json:"request"`
	Standing int64  `json:"standing"`
	Worst    int64  `json:"worst"`
	Best     int64  `json:"best"`
}

// Pinned is what kube-scheduler places of a queued class's pods that Kueue
// admitted to one flavor: Admitted of them (the unit; for a Deployment,
// its replicas one by one while the flavor's quota lasts), Placed of those
// at once in the flavor's pool, and its reasons for the next.
type Pinned struct {
	Flavor   string   `json:"flavor"`
	Admitted int32    `json:"admitted"`
	Placed   int64    `json:"placed"`
	Reasons  []string `json:"reasons,omitempty"`
}

// Short reports whether fewer pods run than the class needs of those
// admitted: every one, but one of a Job that runs in waves.
func (p Pinned) Short(c *sched.Class) bool {
	if c.Kind == keys.KindJob && !c.Gang {
		return p.Placed < 1
	}
	return p.Placed < int64(p.Admitted)
}

// waves is how many rounds of atOnce pods run a Job's pods.
func waves(c *sched.Class, atOnce int64) int64 {
	if c.Kind != keys.KindJob || atOnce <= 0 {
		return 0
	}
	return (int64(c.Pods) + atOnce - 1) / atOnce
}

// pinner places classes pinned to flavors, once per class, flavor and pod
// count: the queues of many tenants share them, and run on every CPU.
type pinner struct {
	cl    *sched.Cluster
	m     *kueuemodel.Model
	ix    *sched.Index
	names []string

	mu   sync.Mutex
	memo map[pinKey]*pinned
}

type pinKey struct {
	class, flavor string
	pods          int32
}

type pinned struct {
	once    sync.Once
	placed  int64
	reasons []string
}

func newPinner(cl *sched.Cluster, m *kueuemodel.Model, names []string) *pinner {
	return &pinner{cl: cl, m: m, ix: sched.NewIndex(cl.Pools), names: names, memo: map[pinKey]*pinned{}}
}

// place is how many of pods pods of class c, pinned to flavor f, the fleet
// at max size holds at once, and kube-scheduler's reasons for the next.
func (p *pinner) place(c *sched.Class, f string, pods int32) Pinned {
	k := pinKey{c.Name, f, pods}
	p.mu.Lock()
	e := p.memo[k]
	if e == nil {
		e = &pinned{}
		p.memo[k] = e
	}
	p.mu.Unlock()
	e.once.Do(func() {
		pc, err := kueuemodel.Pin(c, p.m.Flavors[f], pods)
		if err != nil {
			e.reasons = []string{err.Error()}
			return
		}
		var w sched.Worker
		row := p.ix.Row(pc, p.cl.Pools, p.names, &w)
		e.placed, e.reasons = sched.HoldsWhy(pc, &row, p.cl.Pools)
		// A TAS flavor: Kueue pins the pods host by host (taspin.go).
		if p.m.Flavors[f].TopologyName != nil {
			if placed, reasons, ok := tasPinned(pc, p.pool(f), pods); ok && placed < e.placed {
				e.placed, e.reasons = placed, reasons
			}
		}
	})
	return Pinned{Flavor: f, Admitted: pods, Placed: e.placed, Reasons: e.reasons}
}

// pool is the flavor's pool (a flavor is named after its pool).
func (p *pinner) pool(f string) *sched.Pool {
	for i := range p.cl.Pools {
		if p.cl.Pools[i].Name == f {
			return &p.cl.Pools[i]
		}
	}
	return nil
}

// pinAll places the queued class in each flavor Kueue may admit it to:
// the whole unit in each; a Deployment's replicas one by one, each to the
// first flavor whose quota has room, so that they fill the flavors in
// order.
func (p *pinner) pinAll(a *Admission, qc *Queued) []Pinned {
	c := qc.Class
	var out []Pinned
	if c.Kind != keys.KindDeployment {
		for _, f := range qc.Candidates {
			out = append(out, p.place(c, f, qc.Pods))
		}
		return out
	}
	left := int64(c.Pods)
	for _, f := range qc.Candidates {
		if left == 0 {
			break
		}
		n := min(left, a.Model.Room(a.Queue.ClusterQueue, f, qc.Request))
		if n <= 0 {
			continue
		}
		out = append(out, p.place(c, f, int32(n)))
		left -= n
	}
	return out
}

// unit is the report's line for a queued class.
func (qc *Queued) unit(tenant string) Unit {
	c := qc.Class
	u := Unit{Class: c.Name, Tenant: tenant, Kind: c.Kind, Gang: c.Gang, Pods: c.Pods, Admission: qc.Pods, Flavor: qc.Assignment.Flavor(), Pinned: qc.Pinned}
	for _, p := range qc.Pinned {
		if c.Kind == keys.KindDeployment {
			u.AtOnce += p.Placed
		} else if p.Flavor == u.Flavor {
			u.AtOnce = p.Placed
		}
	}
	u.Waves = waves(c, u.AtOnce)
	for i, ps := range c.PodSets {
		ups := UnitPodSet{Name: ps.Name, Pods: ps.Pods, Row: ps.Row}
		if i < len(qc.PodSets) && qc.PodSets[i].Admitted() {
			ups.Flavor = qc.PodSets[i].Flavor()
		}
		if i < len(qc.RolePinned) {
			ups.Pinned = &qc.RolePinned[i]
		}
		u.PodSets = append(u.PodSets, ups)
	}
	return u
}

// pinRoles places each role of an ML kind's admitted workload in the
// flavor Kueue assigned its pod set, as its pods are pinned there: each
// role on the fleet at max size, alone.
func (p *pinner) pinRoles(cl *sched.Cluster, qc *Queued) []Pinned {
	c := qc.Class
	if n := len(qc.PodSets); n == 0 || n != len(c.PodSets) || !qc.PodSets[n-1].Admitted() {
		return nil
	}
	var out []Pinned
	for i, ps := range c.PodSets {
		row := cl.Class(ps.Row)
		if row == nil {
			return nil
		}
		out = append(out, p.place(row, qc.PodSets[i].Flavor(), ps.Pods))
	}
	return out
}
