package provisioning

import (
	"strings"
	"testing"
	"time"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodes"
)

type runTimeCase struct {
	name      string
	kind      string
	of        string
	seconds   int32
	reserved  []nodes.Reservation
	karpenter bool
	fits      bool
	want      string
}

const hour = 3600

// A class that can land on a pool of p5.48xlarge with a one-day block:
// 23h20m before Karpenter deletes its nodes, 23h30m before EC2 terminates
// a managed node group's.
func runTimeCases() []runTimeCase {
	day := nodes.Reservation{Selector: "cr-0a", Block: true, InstanceType: "p5.48xlarge", Zone: "a", Count: 2,
		Start: "2026-12-14T11:30:00Z", End: "2026-12-15T11:30:00Z"}
	week := day
	week.Selector, week.End = "cr-0b", "2026-12-21T11:30:00Z"
	odcr := nodes.Reservation{Selector: "cr-0c", InstanceType: "p5.48xlarge", Zone: "a", Count: 2}
	other := day
	other.InstanceType = "p5e.48xlarge"
	return []runTimeCase{
		{"no run time, Karpenter", keys.KindJob, "", 0, []nodes.Reservation{day}, true, true,
			`class c can land on pool p, whose Capacity Block cr-0a is 24h long, but has no maxRunTime: Karpenter deletes a block's nodes 40m before its end ("initiating delete for capacity block expiration"), and the run dies with them; give the class a maxRunTime under 23h20m, so that Kueue ends it first ("exceeding the maximum execution time")`},
		{"no run time, EC2", keys.KindJob, "", 0, []nodes.Reservation{day}, false, true,
			`EC2 terminates a block's instances 30m before its end ("we begin to terminate any instances that are still running in the Capacity Block"), and the run dies with them; give the class a maxRunTime under 23h30m`},
		{"run time shorter", keys.KindJob, "", 23 * hour, []nodes.Reservation{day}, true, true, ""},
		{"one second short of Karpenter's lead time", keys.KindJob, "", 23*hour + 20*60 - 1, []nodes.Reservation{day}, true, true, ""},
		{"exactly the block less Karpenter's lead time", keys.KindJob, "", 23*hour + 20*60, []nodes.Reservation{day}, true, true,
			"but its maxRunTime (23h20m) is not shorter than the 23h20m left before Karpenter deletes a block's nodes 40m before its end"},
		{"inside EC2's lead time, outside Karpenter's", keys.KindJob, "", 23*hour + 25*60, []nodes.Reservation{day}, true, true, "its maxRunTime (23h25m)"},
		{"inside EC2's lead time on a managed group", keys.KindJob, "", 23*hour + 25*60, []nodes.Reservation{day}, false, true, ""},
		{"within the block, not EC2's lead time", keys.KindJob, "", 23*hour + 45*60, []nodes.Reservation{day}, false, true, "its maxRunTime (23h45m) is not shorter than the 23h30m"},
		{"the shortest block decides", keys.KindJobSet, "", 48 * hour, []nodes.Reservation{week, day}, true, true, "Capacity Block cr-0a is 24h long, but its maxRunTime (48h)"},
		{"a week's block holds two days", keys.KindPyTorchJob, "", 48 * hour, []nodes.Reservation{week}, true, true, ""},
		{"a TrainJob runs to its end", keys.KindTrainJob, "", 48 * hour, []nodes.Reservation{day}, true, true, "Capacity Block cr-0a is 24h long, but its maxRunTime (48h)"},
		{"an ODCR has no end that drains it", keys.KindJob, "", 0, []nodes.Reservation{odcr}, true, true, ""},
		{"a block of another type", keys.KindJob, "", 0, []nodes.Reservation{other}, true, true, ""},
		{"does not land", keys.KindJob, "", 0, []nodes.Reservation{day}, true, false, ""},
		{"a server is replaced, not ended", keys.KindDeployment, "", 0, []nodes.Reservation{day}, true, true, ""},
		{"a role's row: its class is judged", keys.KindJobSet, "c", 0, []nodes.Reservation{day}, true, true, ""},
	}
}

func runRunTime(tc runTimeCase, drains func(*sched.Pool) (time.Duration, string)) []check.Finding {
	cls := &sched.Class{Name: "c", Kind: tc.kind, Of: tc.of, MaxExecSeconds: tc.seconds, Queued: true}
	p := sched.Pool{Name: "p", Reserved: tc.reserved}
	if tc.karpenter {
		p.KarpenterNodes = 2
	}
	return reservedRunTime(cls, sched.NewRow([]sched.Cell{{Fits: tc.fits, Type: "p5.48xlarge"}}), []sched.Pool{p}, drains)
}

func caught(tc runTimeCase, f []check.Finding) bool {
	if tc.want == "" {
		return len(f) > 0
	}
	return len(f) != 1 || !strings.Contains(f[0].Message, tc.want) || f[0].Severity != check.Error || f[0].Pool != "p" || f[0].Check != IDReservedRunTime
}

func TestReservedRunTime(t *testing.T) {
	for _, tc := range runTimeCases() {
		t.Run(tc.name, func(t *testing.T) {
			if f := runRunTime(tc, drains); caught(tc, f) {
				t.Errorf("findings %+v, want %q", f, tc.want)
			}
		})
	}
}

// TestReservedRunTimeCatchesBugs injects two bugs: comparing the run time
// with the block's whole length (no lead time), and taking EC2's 30
// minutes for Karpenter's pools too. The table catches each.
func TestReservedRunTimeCatchesBugs(t *testing.T) {
	for _, bug := range []struct {
		name   string
		drains func(*sched.Pool) (time.Duration, string)
		want   int
	}{
		{"no lead time", func(p *sched.Pool) (time.Duration, string) { _, w := drains(p); return 0, w }, 5},
		{"EC2's lead time on Karpenter's pools", func(*sched.Pool) (time.Duration, string) { return EC2BlockLead, ec2Drains }, 3},
	} {
		n := 0
		for _, tc := range runTimeCases() {
			if caught(tc, runRunTime(tc, bug.drains)) {
				n++
			}
		}
		if n != bug.want {
			t.Errorf("%s: caught by %d cases, want %d", bug.name, n, bug.want)
		}
	}
}

// A Job Kueue does not queue cannot carry a run time (vet refuses it):
// nothing ends its run before the block's nodes go.
func TestReservedRunTimeUnqueued(t *testing.T) {
	day := runTimeCases()[0].reserved
	cls := &sched.Class{Name: "c", Kind: keys.KindJob}
	f := ReservedRunTime(cls, sched.NewRow([]sched.Cell{{Fits: true, Type: "p5.48xlarge"}}), []sched.Pool{{Name: "p", Reserved: day}})
	if want := "but Kueue does not queue it, so nothing ends its run: EC2 terminates"; len(f) != 1 || !strings.Contains(f[0].Message, want) || !strings.Contains(f[0].Message, "set queue: true and a maxRunTime under 23h30m") {
		t.Errorf("findings %+v, want one containing %q", f, want)
	}
}
