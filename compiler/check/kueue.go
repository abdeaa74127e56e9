package check

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/internal/par"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// Admission is what Kueue makes of one tenant's queue, which the
// StageQueue checks read: its ClusterQueue in the Kueue model, each class
// it queues as Kueue counts and assigns it, and the report whose cells say
// where the classes land.
type Admission struct {
	Queue  kueuemodel.Queue
	CQ     *kueue.ClusterQueue
	Model  *kueuemodel.Model
	Report *Report
	// Classes are the queued classes the cluster has, in the queue's order.
	Classes []Queued

	// Pools are the cluster's.
	Pools []sched.Pool

	shared map[any]any // Shared's
}

// Pool is the cluster's pool of that name (a flavor's), or nil.
func (a *Admission) Pool(name string) *sched.Pool {
	for i := range a.Pools {
		if a.Pools[i].Name == name {
			return &a.Pools[i]
		}
	}
	return nil
}

// Shared is what work makes of the queue, worked out once under key for
// the StageQueue checks that read it: a queue's checks run in turn on one
// CPU.
func Shared[T any](a *Admission, key any, work func() T) T {
	if v, ok := a.shared[key]; ok {
		return v.(T)
	}
	v := work()
	if a.shared == nil {
		a.shared = map[any]any{}
	}
	a.shared[key] = v
	return v
}

// Queued is one queued class as Kueue sees it.
type Queued struct {
	Class *sched.Class
	// Pods are one workload's (kueuemodel.UnitPods): a Job's parallelism,
	// a StatefulSet's replicas, one pod of a Deployment.
	Pods int32
	// Request is what Kueue counts for one pod, after the namespace's
	// LimitRange.
	Request corev1.ResourceList
	// Assignment is where Kueue admits one workload on an empty cluster,
	// and Candidates every flavor it may admit it to as others fill up
	// (none unless admitted).
	Assignment kueuemodel.Assignment
	Candidates []string
	// Pinned is what kube-scheduler places of it in each candidate flavor
	// once Kueue pins it there (pinner.pinAll).
	Pinned []Pinned
	// PodSets are, for an ML kind, Kueue's assignment of one whole
	// workload's pod sets (sched.Class.PodSets), in order, on an empty
	// cluster (kueuemodel.AssignPodSets): the last is the one that failed
	// when one did.
	PodSets []kueuemodel.Assignment
	// RolePinned is, for an admitted ML kind, what kube-scheduler places
	// of each pod set's pods pinned to its flavor (pinner.pinRoles).
	RolePinned []Pinned
}

// Kueue checks the ClusterQueues and ResourceFlavors in the tree in Kueue's
// own terms, for every queued class a tenant may use: Kueue's flavor
// assigner (kueuemodel, judged by ladder/kueue against Kueue itself)
// admits one whole workload of it on an empty cluster; the flavor it
// picks, and every flavor it could pick once others are in use, is a pool
// where the class lands and, for a gang, where the whole gang fits; every
// requested resource is covered; and the CRDs' limits hold. It runs the
// StageKueue checks of checks (the registry's), then their StageQueue
// checks on each queue, and works out each queued class's unit.
func Kueue(tr tree.Typed, cl *sched.Cluster, r *Report, queues []kueuemodel.Queue, checks []Check) error {
	return runKueue(tr, cl, r, queues, checks, false)
}

// KueueLive runs, on a running cluster's nodes (readback.FromLive), the
// StageQueue checks of checks: the registry gives it the Kueue checks
// that read nodes rather than quota (registry.OnLiveNodes), since Kueue's
// topology-aware scheduling places on the nodes that exist, whose labels
// give its domains, so there they are exact.
func KueueLive(tr tree.Typed, cl *sched.Cluster, r *Report, queues []kueuemodel.Queue, checks []Check) error {
	return runKueue(tr, cl, r, queues, checks, true)
}

// runKueue runs the StageQueue checks of checks, and unless live their
// StageKueue checks and the units.
func runKueue(tr tree.Typed, cl *sched.Cluster, r *Report, queues []kueuemodel.Queue, checks []Check, live bool) error {
	m, err := kueuemodel.New(tr)
	if err != nil {
		return err
	}
	for _, q := range queues {
		if m.Queues[q.ClusterQueue] == nil {
			return fmt.Errorf("check: ClusterQueue %s missing from the tree", q.ClusterQueue)
		}
	}
	if !live {
		for _, run := range at(checks, StageKueue) {
			r.Findings = append(r.Findings, run.kueue(m, queues)...)
		}
	}
	// Queues are independent and the model, the cells and the classes are
	// only read: each is checked on its own CPU, its findings gathered in
	// queue order.
	r.indexCells()
	cl.IndexClasses()
	memo := kueuemodel.NewMemo(m, cl, queues)
	pin := newPinner(cl, m, r.Pools)
	onQueue := at(checks, StageQueue)
	found := make([][]Finding, len(queues))
	units := make([][]Unit, len(queues))
	par.Each(len(queues), func(i int) {
		a := admission(queues[i], cl, m, memo, r, pin)
		for _, run := range onQueue {
			found[i] = append(found[i], run.queue(a)...)
		}
		for k := range a.Classes {
			if live {
				break
			}
			u := a.Classes[k].unit(a.Queue.Tenant)
			u.Preempts = a.preempts(k)
			// A unit Kueue's TAS never places runs no pod at all.
			if u.Topology = a.unitTopology(&a.Classes[k]); u.Topology != nil && u.Topology.Best < int64(u.Admission) {
				u.AtOnce, u.Waves = 0, 0
			}
			units[i] = append(units[i], u)
		}
	})
	for i, f := range found {
		r.Findings = append(r.Findings, f...)
		r.Units = append(r.Units, units[i]...)
	}
	r.Sort()
	return nil
}

// admission works out what Kueue makes of the queue's classes.
func admission(q kueuemodel.Queue, cl *sched.Cluster, m *kueuemodel.Model, memo *kueuemodel.Memo, r *Report, pin *pinner) *Admission {
	a := &Admission{Queue: q, CQ: m.Queues[q.ClusterQueue], Model: m, Report: r, Pools: cl.Pools}
	for _, name := range q.Classes {
		c := cl.Class(name)
		if c == nil {
			continue
		}
		// Kueue counts the pod as the namespace's LimitRange leaves it.
		qc := Queued{Class: c, Pods: kueuemodel.UnitPods(c), Request: memo.Request(m, c, q.Namespace)}
		admits := memo.Admitter(m, c)
		topo := kueuemodel.TopologyOf(c.Pod)
		qc.Assignment = m.AssignWith(q.ClusterQueue, admits, topo, qc.Request, qc.Pods)
		if qc.Assignment.Admitted() {
			qc.Candidates = m.Candidates(q.ClusterQueue, admits, topo, qc.Request, qc.Pods)
			qc.Pinned = pin.pinAll(a, &qc)
		}
		qc.PodSets = podSets(m, cl, q, c)
		qc.RolePinned = pin.pinRoles(cl, &qc)
		a.Classes = append(a.Classes, qc)
	}
	return a
}

// podSets assigns flavors to one whole workload of an ML class's pod sets,
// each row's pod as Kueue counts it in the queue's namespace.
func podSets(m *kueuemodel.Model, cl *sched.Cluster, q kueuemodel.Queue, c *sched.Class) []kueuemodel.Assignment {
	if len(c.PodSets) == 0 {
		return nil
	}
	var sets []kueuemodel.PodSet
	for _, ps := range c.PodSets {
		row := cl.Class(ps.Row)
		if row == nil {
			return nil
		}
		sets = append(sets, kueuemodel.PodSet{Name: ps.Name, Admits: m.Admitter(row.Pod), Topo: kueuemodel.TopologyOf(row.Pod),
			Request: m.ClassRequest(row, q.Namespace), Count: ps.Pods})
	}
	return m.AssignPodSets(q.ClusterQueue, sets)
}
