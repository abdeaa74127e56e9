package provisioning

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodes"
)

const IDReservedRunTime check.ID = "ReservedRunTime"

// How long before a Capacity Block's end its nodes are taken away, and by
// whom, in their own words. Karpenter: karpenter-provider-aws v1.15.1
// pkg/apis/v1/ec2nodeclass_status.go CapacityReservationFromEC2 marks a
// block "expiring" once the clock is past its end less
// capacityReservationExpirationPeriod (time.Minute * 40), and
// pkg/controllers/capacityreservation/expiration/controller.go Reconcile
// deletes the NodeClaims in an expiring block. EC2, for a managed node
// group's instances: "Thirty minutes before the reservation expires, we
// begin to terminate any instances that are still running in the Capacity
// Block" (Amazon EC2 User Guide, Work with Capacity Blocks).
const (
	KarpenterBlockLead = 40 * time.Minute
	EC2BlockLead       = 30 * time.Minute
	karpenterDrains    = `Karpenter deletes a block's nodes %s before its end ("initiating delete for capacity block expiration")`
	ec2Drains          = `EC2 terminates a block's instances %s before its end ("we begin to terminate any instances that are still running in the Capacity Block")`
)

// A workload that runs to completion and lands on a block must end before
// its nodes go: its run time, as Kueue enforces it (Kueue v0.19.2
// pkg/controller/core/workload_controller.go reconcileMaxExecutionTime
// deactivates an admitted workload once it has run
// spec.maximumExecutionTimeSeconds, "exceeding the maximum execution
// time"), must be shorter than the block's length less the lead time. The
// window is the spec's data: the check compares lengths, never the clock;
// a run admitted late in the block still needs the block to have that
// much left, which no build can know.
const (
	reasonReservedRunTimeNone     = "class %s can land on pool %s, whose Capacity Block %s is %s long, but has no maxRunTime: %s, and the run dies with them; give the class a maxRunTime under %s, so that Kueue ends it first (\"exceeding the maximum execution time\")"
	reasonReservedRunTimeUnqueued = "class %s can land on pool %s, whose Capacity Block %s is %s long, but Kueue does not queue it, so nothing ends its run: %s, and the run dies with them; set queue: true and a maxRunTime under %s, so that Kueue ends it first (\"exceeding the maximum execution time\")"
	reasonReservedRunTimeLong     = "class %s can land on pool %s, whose Capacity Block %s is %s long, but its maxRunTime (%s) is not shorter than the %s left before %s; give the class a maxRunTime under %s"
)

// drains is who takes a pool's block nodes away, and how long before the
// block's end: Karpenter for its pools (validation keeps reservations off
// "both" pools), else EC2.
func drains(p *sched.Pool) (time.Duration, string) {
	if p.KarpenterNodes > 0 {
		return KarpenterBlockLead, karpenterDrains
	}
	return EC2BlockLead, ec2Drains
}

// ReservedRunTime refuses a class that runs to completion and can land on
// a pool's Capacity Block without a run time that ends before Karpenter
// drains the shortest such block. Servers are replaced by their
// controllers when a node goes, and have no run time.
func ReservedRunTime(c *sched.Class, w *sched.Row, pools []sched.Pool) []check.Finding {
	return reservedRunTime(c, w, pools, drains)
}

// reservedRunTime is ReservedRunTime with the lead times given, so that a
// test can take them away.
func reservedRunTime(c *sched.Class, w *sched.Row, pools []sched.Pool, drains func(*sched.Pool) (time.Duration, string)) []check.Finding {
	if c.Of != "" || !runsToCompletion(c.Kind) {
		return nil
	}
	var out []check.Finding
	for k, cell := range w.Evaluated {
		p := &pools[w.At[k]]
		if !cell.Fits {
			continue
		}
		b, length, ok := shortestBlock(p.Reserved, cell.Type)
		if !ok {
			continue
		}
		lead, who := drains(p)
		gone := fmt.Sprintf(who, dur(lead))
		room := length - lead
		run := time.Duration(c.MaxExecSeconds) * time.Second
		var msg string
		switch {
		case !c.Queued:
			msg = fmt.Sprintf(reasonReservedRunTimeUnqueued, c.Name, p.Name, b.Selector, dur(length), gone, dur(room))
		case c.MaxExecSeconds == 0:
			msg = fmt.Sprintf(reasonReservedRunTimeNone, c.Name, p.Name, b.Selector, dur(length), gone, dur(room))
		case run >= room:
			msg = fmt.Sprintf(reasonReservedRunTimeLong, c.Name, p.Name, b.Selector, dur(length), dur(run), dur(room), gone, dur(room))
		default:
			continue
		}
		out = append(out, check.Finding{Severity: check.Error, Check: IDReservedRunTime, Class: c.Name, Pool: p.Name, Message: msg})
	}
	return out
}

// runsToCompletion: the kinds whose workloads end, which Kueue's
// GenericJob integrations give a maximum execution time (jobframework
// NewWorkload, trainjob's among them).
func runsToCompletion(kind string) bool {
	switch kind {
	case keys.KindJob, keys.KindJobSet, keys.KindRayJob, keys.KindPyTorchJob, keys.KindTrainJob:
		return true
	}
	return false
}

// shortestBlock is the shortest Capacity Block of the instance type among
// rs, and its length.
func shortestBlock(rs []nodes.Reservation, instanceType string) (nodes.Reservation, time.Duration, bool) {
	var best nodes.Reservation
	var length time.Duration
	found := false
	for _, r := range rs {
		if !r.Block || r.InstanceType != instanceType {
			continue
		}
		s, err1 := time.Parse(time.RFC3339, r.Start)
		e, err2 := time.Parse(time.RFC3339, r.End)
		if err1 != nil || err2 != nil {
			continue
		}
		if l := e.Sub(s); !found || l < length {
			best, length, found = r, l, true
		}
	}
	return best, length, found
}

// dur is a duration as a spec writes it: "336h", "335h20m".
func dur(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
