package validate

import (
	"math"
	"time"

	"github.com/gpufleet/gpufleet/compiler/spec"
)

// maxRunTime checks a class's run time, which the tree writes as the
// workload's kueue.x-k8s.io/max-exec-time-seconds label. Kueue v0.19.2
// honours the label on the job objects of its GenericJob integrations
// (pkg/controller/jobframework/utils.go NewWorkload,
// MaximumExecutionTimeSecondsForObject), and refuses a value that is not a
// positive integer (validation.go validateCreateForMaxExecTime) and
// ignores one above an int32: whole seconds from 1 to 2147483647.
// Deployments, StatefulSets, LeaderWorkerSets and RayClusters serve, and
// Kueue's webhooks for the first three do not copy the label onto the
// pods its pod integration reads, so only queued batch kinds take it.
func (c *checker) maxRunTime(name string, cl spec.Class) {
	if cl.MaxRunTime == "" {
		return
	}
	at := p("classes", name, "maxRunTime")
	if !cl.Batch() {
		c.errorf(at, "maxRunTime needs a batch kind (Job, JobSet, RayJob, PyTorchJob), not %s: a server has no run time, and Kueue deactivates a workload once it runs that long", cl.Kind)
		return
	}
	if !cl.Queued() {
		c.errorf(at, "maxRunTime needs queue: Kueue enforces a workload's maximum execution time (kueue.x-k8s.io/max-exec-time-seconds) only on workloads it admits")
		return
	}
	d, err := spec.RunTime(cl.MaxRunTime)
	switch {
	case err != nil:
		c.errorf(at, "maxRunTime %q is not a duration of hours, minutes and seconds such as \"6h\" or \"1h30m\"", cl.MaxRunTime)
	case d < time.Second || d%time.Second != 0:
		c.errorf(at, "maxRunTime %q is not whole seconds of at least 1: Kueue's kueue.x-k8s.io/max-exec-time-seconds \"should be greater than 0\"", cl.MaxRunTime)
	case d > math.MaxInt32*time.Second:
		c.errorf(at, "maxRunTime %q is above %d seconds, which Kueue ignores (it reads kueue.x-k8s.io/max-exec-time-seconds as an int32)", cl.MaxRunTime, math.MaxInt32)
	}
}
