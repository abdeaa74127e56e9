package nodediff

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/fake"
	"github.com/aws/karpenter-provider-aws/pkg/providers/capacityreservation"
	"github.com/patrickmn/go-cache"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	clocktesting "k8s.io/utils/clock/testing"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// placement is where a workload's nodes go: into a reservation (by zone)
// or on demand, and how many pods get none.
type placement struct {
	reserved map[string]int64
	onDemand int64
	pending  int64
}

func (p placement) String() string {
	return fmt.Sprintf("reserved %v, on-demand %d, pending pods %d", p.reserved, p.onDemand, p.pending)
}

func (p placement) equal(q placement) bool { return p.String() == q.String() }

// TestReservedSolve runs Karpenter v1.15.1's provisioning scheduler on
// each reserved NodePool of the example fleets with its own capacity
// reservation provider over the fake EC2 API (DescribeCapacityReservations
// answering with the reservations the tree records), the EC2NodeClass's
// status as its controller fills it (v1.CapacityReservationFromEC2), and
// the ReservedCapacityResolver's offerings: Solve decides how many nodes
// land in the reservation, in which zone, and what spills to on-demand
// (or stays pending). The checker's model (its cell's pods per node, the
// pool's reservations and whether it falls back) must agree, for the
// class's workload and for one that outgrows the reservation.
//
// The clock is the block's start plus an hour: the build never reads one,
// and Karpenter's provider drops a reservation past its end.
//
// The mutant tells EC2 one reserved instance is already running (one
// fewer available than the tree records), which the comparison must
// catch.
func TestReservedSolve(t *testing.T) {
	_, described, _ := setup(t)
	names, paths, err := testfleet.Examples("../..")
	if err != nil {
		t.Fatal(err)
	}
	var judged, agree, caught int
	for i := range paths {
		f := load(t, names[i], paths[i])
		if f == nil {
			continue
		}
		ctx := f.context(t)
		daemons := f.daemons(t)
		infos := f.infos(t, described)
		judge := func(np *karpv1.NodePool, p *sched.Pool, rs []nodes.Reservation) {
			for j := range f.cl.Classes {
				c := &f.cl.Classes[j]
				cell := f.res.Report.Cell(c.Name, p.Name)
				if cell == nil || !cell.Fits {
					continue
				}
				for _, extra := range []int32{0, 2} {
					cc := *c
					cc.Pods += extra
					want := modelled(&cc, cell, p)
					got, err := solveReserved(ctx, f, np, rs, 0, infos, &cc, daemons)
					if err != nil {
						t.Fatalf("%s: %v", f.name, err)
					}
					judged++
					if got.equal(want) {
						agree++
					} else {
						t.Errorf("%s: NodePool %s (fallback %v), class %s × %d pods: Karpenter: %s; the checker: %s", f.name, np.Name, p.FallsBack, c.Name, cc.Pods, got, want)
					}
					mutant, err := solveReserved(ctx, f, np, rs, 1, infos, &cc, daemons)
					if err != nil {
						t.Fatalf("%s: %v", f.name, err)
					}
					if !mutant.equal(want) {
						caught++
					}
				}
			}
		}
		for _, np := range f.pools {
			rs, err := nodes.ParseReservations(np.Annotations[keys.AnnotationReserved])
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) == 0 {
				continue
			}
			p := poolNamed(t, f.cl, np.Name)
			judge(np, p, rs)
			if !p.FallsBack {
				continue
			}
			// The same pool without its fallback: capacity type "reserved"
			// alone, and the checker's pool so too.
			strict, sp := np.DeepCopy(), *p
			for k, r := range strict.Spec.Template.Spec.Requirements {
				if r.Key == karpv1.CapacityTypeLabelKey {
					strict.Spec.Template.Spec.Requirements[k].Values = []string{karpv1.CapacityTypeReserved}
				}
			}
			sp.FallsBack = false
			judge(strict, &sp, rs)
		}
	}
	t.Logf("Karpenter v1.15.1 Solve with its capacity-reservation provider: %d reserved workloads judged, %d agree with the checker; the mutant (one reserved instance already taken) caught in %d of %d", judged, agree, caught, judged)
	if judged == 0 {
		t.Fatal("no reserved NodePool was judged")
	}
	if caught != judged {
		t.Errorf("the mutant was caught in %d of %d", caught, judged)
	}
}

// modelled is the checker's placement of c's pods on reserved pool p: as
// many nodes as its cell's pods per node need, the reserved ones first,
// the rest on demand where the pool falls back, else their pods pending.
func modelled(c *sched.Class, cell *sched.Cell, p *sched.Pool) placement {
	var perNode int64
	for _, z := range cell.Zones {
		perNode = max(perNode, z.PodsPerNode)
	}
	need := (int64(c.Pods) + perNode - 1) / perNode
	out := placement{reserved: map[string]int64{}}
	for _, r := range p.Reserved {
		if r.InstanceType != cell.Type || need == 0 {
			continue
		}
		n := min(need, int64(r.Count))
		out.reserved[r.Zone] += n
		need -= n
	}
	if p.FallsBack {
		out.onDemand = need
	} else {
		out.pending = min(int64(c.Pods), need*perNode)
	}
	return out
}

// solveReserved runs Karpenter's provisioning loop until it places no
// more: each pass is Solve with the reservations EC2 then reports, each
// as the tree records it less the instances running in it (taken before
// the first pass, and the reserved NodeClaims of the passes before). The
// provisioner reserves offerings strictly (DisableReservedCapacityFallback,
// as Provisioner.Schedule does): a pod that would fit a reservation its
// pass already holds waits for the next pass, when EC2 reports the
// reservation full and the NodePool falls back to on-demand, if it may.
func solveReserved(ctx context.Context, f *fleet, np *karpv1.NodePool, rs []nodes.Reservation, taken int32, infos []ec2types.InstanceTypeInfo, c *sched.Class, daemons []*corev1.Pod) (placement, error) {
	used := make([]int32, len(rs))
	for i := range used {
		used[i] = taken
	}
	out := placement{reserved: map[string]int64{}}
	pending := pods(c)
	for pass := 0; pass < 4 && len(pending) > 0; pass++ {
		got, left, err := solvePass(ctx, f, np, rs, used, infos, pending, daemons)
		if err != nil {
			return out, err
		}
		for z, n := range got.reserved {
			out.reserved[z] += n
			for i, r := range rs {
				if r.Zone == z && n > 0 {
					k := min(n, int64(r.Count-used[i]))
					used[i] += int32(k)
					n -= k
				}
			}
		}
		out.onDemand += got.onDemand
		if len(left) == len(pending) {
			break
		}
		pending = left
	}
	out.pending = int64(len(pending))
	return out, nil
}

// solvePass is one Solve with reservations EC2 reports with used[i] of
// rs[i]'s instances running; it returns the pods left pending.
func solvePass(ctx context.Context, f *fleet, np *karpv1.NodePool, rs []nodes.Reservation, used []int32, infos []ec2types.InstanceTypeInfo, ps, daemons []*corev1.Pod) (placement, []*corev1.Pod, error) {
	start := time.Date(2026, 12, 14, 12, 30, 0, 0, time.UTC)
	for _, r := range rs {
		if s, err := time.Parse(time.RFC3339, r.Start); err == nil {
			start = s.Add(time.Hour)
		}
	}
	clk := clocktesting.NewFakeClock(start)
	api := fake.NewEC2API()
	var crs []ec2types.CapacityReservation
	for i, r := range rs {
		cr := ec2types.CapacityReservation{
			CapacityReservationId:  aws.String(r.Selector),
			InstanceType:           aws.String(r.InstanceType),
			AvailabilityZone:       aws.String(r.Zone),
			AvailableInstanceCount: aws.Int32(max(r.Count-used[i], 0)),
			TotalInstanceCount:     aws.Int32(r.Count),
			InstanceMatchCriteria:  ec2types.InstanceMatchCriteriaTargeted,
			OwnerId:                aws.String("012345678901"),
			State:                  ec2types.CapacityReservationStateActive,
			ReservationType:        ec2types.CapacityReservationTypeDefault,
		}
		if tags, ok := strings.CutPrefix(r.Selector, "tags:"); ok {
			cr.CapacityReservationId = aws.String(fmt.Sprintf("cr-%017d", i))
			for _, kv := range strings.Split(tags, ",") {
				k, v, _ := strings.Cut(kv, "=")
				cr.Tags = append(cr.Tags, ec2types.Tag{Key: aws.String(k), Value: aws.String(v)})
			}
		}
		if r.Block {
			cr.ReservationType = ec2types.CapacityReservationTypeCapacityBlock
		}
		if end, err := time.Parse(time.RFC3339, r.End); err == nil {
			cr.EndDate = aws.Time(end)
		}
		crs = append(crs, cr)
	}
	api.DescribeCapacityReservationsOutput.Set(&ec2.DescribeCapacityReservationsOutput{CapacityReservations: crs})
	crp := capacityreservation.NewProvider(api, clk, cache.New(time.Hour, time.Hour), cache.New(time.Hour, time.Hour))
	nc := f.classes[np.Spec.Template.Spec.NodeClassRef.Name].DeepCopy()
	listed, err := crp.List(ctx, nc.Spec.CapacityReservationSelectorTerms...)
	if err != nil {
		return placement{}, nil, err
	}
	if len(listed) != len(rs) {
		return placement{}, nil, fmt.Errorf("EC2NodeClass %s's selector terms select %d of the %d reservations the tree records", nc.Name, len(listed), len(rs))
	}
	for _, cr := range listed {
		status, err := v1.CapacityReservationFromEC2(clk, cr)
		if err != nil {
			return placement{}, nil, err
		}
		nc.Status.CapacityReservations = append(nc.Status.CapacityReservations, status)
	}
	WithSubnets(nc, f.zones)
	its, err := OfferedReserved(ctx, nc, infos, f.zones, crp)
	if err != nil {
		return placement{}, nil, err
	}
	res, err := Solve(ctx, np, its, ps, daemons)
	if err != nil {
		return placement{}, nil, err
	}
	out := placement{reserved: map[string]int64{}}
	var left []*corev1.Pod
	for _, p := range ps {
		if _, ok := res.PodErrors[p]; ok {
			left = append(left, p)
		}
	}
	for _, claim := range res.NewNodeClaims {
		ct := claim.Requirements.Get(karpv1.CapacityTypeLabelKey).Values()
		if len(ct) != 1 || ct[0] != karpv1.CapacityTypeReserved {
			out.onDemand++
			continue
		}
		// The zone is the reserved offering's the claim launches into.
		zones := sets.New[string]()
		for _, it := range claim.InstanceTypeOptions {
			for _, o := range it.Offerings.Compatible(claim.Requirements) {
				if o.CapacityType() == karpv1.CapacityTypeReserved {
					zones.Insert(o.Zone())
				}
			}
		}
		out.reserved[strings.Join(sets.List(zones), "|")]++
	}
	return out, left, nil
}
