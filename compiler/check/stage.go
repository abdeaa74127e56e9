package check

import (
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// ID names a check. Findings carry it, the spec's checks settings lower it,
// and the github and sarif formats use it as the rule. Each check's file,
// named after it, declares its ID.
type ID string

// Check is one row of the registry (compiler/check/registry): a check and
// the function that runs it.
type Check struct {
	ID  ID
	Run Run
	// Severity is the one its findings have, unless the spec's checks
	// setting lowers it (Lowerable).
	Severity  string
	Lowerable bool
	// Proves is what a fleet without its findings has, in a line.
	Proves string
}

// Stage is when a check runs, which says what it reads.
type Stage uint8

const (
	// StageRow checks read one class's row as RunCluster makes it, each
	// class on its own CPU.
	StageRow Stage = iota
	// StageCluster checks read the cluster, every row and the intent,
	// once every row is made.
	StageCluster
	// StageKueue checks read the Kueue model and every queue, once, in the
	// Kueue pass that follows the queues' derivation.
	StageKueue
	// StageQueue checks read one queue's Admission in the Kueue pass, each
	// queue on its own CPU.
	StageQueue
)

// Run is a check's function at its stage; OnRow, OnCluster, OnKueue and
// OnQueue make it.
type Run struct {
	Stage   Stage
	row     func(c *sched.Class, w *sched.Row, pools []sched.Pool) []Finding
	cluster func(cl *sched.Cluster, rows []sched.Row, in Intent) []Finding
	kueue   func(m *kueuemodel.Model, queues []kueuemodel.Queue) []Finding
	queue   func(a *Admission) []Finding
}

// OnRow runs f on each class's row, with every pool.
func OnRow(f func(c *sched.Class, w *sched.Row, pools []sched.Pool) []Finding) Run {
	return Run{Stage: StageRow, row: f}
}

// OnCluster runs f once on the cluster and its rows, in class order.
func OnCluster(f func(cl *sched.Cluster, rows []sched.Row, in Intent) []Finding) Run {
	return Run{Stage: StageCluster, cluster: f}
}

// OnKueue runs f once on the Kueue model and every queue.
func OnKueue(f func(m *kueuemodel.Model, queues []kueuemodel.Queue) []Finding) Run {
	return Run{Stage: StageKueue, kueue: f}
}

// OnQueue runs f on each queue's Admission.
func OnQueue(f func(a *Admission) []Finding) Run {
	return Run{Stage: StageQueue, queue: f}
}

// Defined reports whether a function runs the check at its stage.
func (r Run) Defined() bool {
	switch r.Stage {
	case StageRow:
		return r.row != nil
	case StageCluster:
		return r.cluster != nil
	case StageKueue:
		return r.kueue != nil
	case StageQueue:
		return r.queue != nil
	}
	return false
}

// at lists the runs of a stage among checks, in their order.
func at(checks []Check, s Stage) []Run {
	var out []Run
	for _, c := range checks {
		if c.Run.Stage == s {
			out = append(out, c.Run)
		}
	}
	return out
}
