package kueuediff

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/klog/v2"
	clocktesting "k8s.io/utils/clock/testing"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/scheduler/flavorassigner"
	"sigs.k8s.io/kueue/pkg/workload"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// reservedFleets are judged by TestReservedQuota: the rung's own fleet (a
// block and an ODCR without fallback beside on-demand, one-GPU Jobs, a
// tenant with no quota and one with 24 GPUs) and the example.
var reservedFleets = []string{"testdata/reserved.cue", "../../fleets/reserved"}

// TestReservedQuota admits each queued Job class's workloads one after
// another into its tenant's ClusterQueue with Kueue v0.19.2's own flavor
// assigner, each admitted Workload assumed in Kueue's cache before the
// next cycle (as Scheduler.assumeWorkload does), until one does not fit.
// Judged against the reservations the tree records (nodes.Group.Reserved,
// each instance's GPUs): Kueue admits to a pool's reserved flavor first;
// on a pool that launches only into its reservations, never more GPUs
// than they hold, and for a tenant with no GPU quota exactly as many as
// its workloads fill; then the next flavor, or the workload waits.
// It also proves it catches a reserved flavor's quota one GPU above or
// below the reservation.
func TestReservedQuota(t *testing.T) {
	ctx := context.Background()
	crds, err := crdtest.Load(upstream.Kueue, upstream.KueueCRDs)
	if err != nil {
		t.Fatal(err)
	}
	runs, caught, mutants := 0, 0, 0
	for _, path := range reservedFleets {
		res, err := compiler.Compile([]string{path})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		lines, bad, err := reservedAdmissions(ctx, crds, res, res.Tree)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, l := range lines {
			t.Logf("%s: %s", path, l)
		}
		for _, l := range lines {
			if strings.HasPrefix(l, "tenant ") {
				runs++
			}
		}
		for _, b := range bad {
			t.Errorf("%s: %s", path, b)
		}
		// The deliberate bugs: each reserved flavor's GPU quota one
		// above, or one below, what its reservations hold. One-GPU
		// workloads tell either; the example's one workload of 16 GPUs
		// tells only the one below (17 GPUs hold no second workload).
		for _, delta := range []int64{1, -1} {
			mutant, err := bumpReservedGPUs(res, res.Tree, delta)
			if err != nil {
				t.Fatal(err)
			}
			_, bad, err := reservedAdmissions(ctx, crds, res, mutant)
			if err != nil {
				t.Fatalf("%s, mutant %+d: %v", path, delta, err)
			}
			mutants++
			if len(bad) > 0 {
				caught++
				t.Logf("%s, reserved quota %+d caught: %s", path, delta, bad[0])
			} else if path == reservedFleets[0] {
				t.Errorf("%s: the reserved quota %+d is not caught", path, delta)
			}
		}
	}
	t.Logf("%d tenant × class admission runs; the reserved quota off by one caught in %d of %d mutants", runs, caught, mutants)
}

// reservation is a pool's reserved GPUs as the tree records them.
type reservation struct {
	gpus      int64
	fallsBack bool
}

func reservedPools(res *compiler.Result) map[string]reservation {
	out := map[string]reservation{}
	for _, g := range res.Groups {
		if len(g.Reserved) == 0 {
			continue
		}
		r := out[g.Pool]
		r.fallsBack = g.FallsBack
		for _, rv := range g.Reserved {
			if in, ok := res.Catalog[rv.InstanceType]; ok && in.GPU != nil {
				r.gpus += int64(rv.Count) * in.GPU.Count
			}
		}
		out[g.Pool] = r
	}
	return out
}

// reservedAdmissions runs every queued Job class of every tenant whose
// ClusterQueue has a reserved flavor, and says what Kueue admitted where
// ("p5-block:16 p5-od:16, then NoFit: …") and what disagrees.
func reservedAdmissions(ctx context.Context, crds *crdtest.Validator, res *compiler.Result, tr tree.Tree) (lines, bad []string, err error) {
	reserved := reservedPools(res)
	k, err := Load(ctx, crds, tr)
	if err != nil {
		return nil, nil, err
	}
	onFlavor := map[string]int64{}
	for _, q := range compiler.KueueIntent(res.Fleet) {
		cq := k.snapshot.ClusterQueue(kueue.ClusterQueueReference(q.ClusterQueue))
		if cq == nil {
			return nil, nil, fmt.Errorf("ClusterQueue %s not in Kueue's snapshot", q.ClusterQueue)
		}
		var flavors []string
		for _, rg := range cq.ResourceGroups {
			for _, f := range rg.Flavors {
				flavors = append(flavors, string(f))
			}
		}
		if !slices.ContainsFunc(flavors, func(f string) bool { _, ok := reserved[f]; return ok }) {
			continue
		}
		limited := false
		for _, tn := range res.Fleet.Tenants {
			if tn.Name == q.Tenant && tn.Spec.Quota != nil && tn.Spec.Quota.GPU != nil {
				limited = true
			}
		}
		for _, class := range q.Classes {
			var j batchv1.Job
			docs := tree.Docs(res.Tree[tree.ClassExample(class)])
			if len(docs) == 0 || tree.Decode(docs[0], &j) != nil || j.Kind != keys.KindJob {
				continue
			}
			j.Namespace = q.Namespace
			steps, per, last, err := k.admitAll(ctx, q.ClusterQueue, &j)
			if err != nil {
				return nil, nil, fmt.Errorf("tenant %s, class %s: %w", q.Tenant, class, err)
			}
			var seq []string
			for _, s := range steps {
				seq = append(seq, fmt.Sprintf("%s:%d", s.flavor, s.gpus))
				onFlavor[s.flavor] += s.gpus
			}
			lines = append(lines, fmt.Sprintf("tenant %s, class %s (%d GPUs a workload): %s, then %s", q.Tenant, class, per, strings.Join(seq, " "), last))
			who := fmt.Sprintf("tenant %s, class %s", q.Tenant, class)
			bad = append(bad, judgeReserved(who, steps, per, limited, reserved, flavors, func(f string) bool { return res.Report.Cell(class, f).Fits })...)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(onFlavor)) {
		if r, ok := reserved[f]; ok {
			lines = append(lines, fmt.Sprintf("flavor %s: %d GPUs admitted over all tenants, %d reserved", f, onFlavor[f], r.gpus))
		}
	}
	return lines, bad, nil
}

// judgeReserved holds one class's admissions to its ClusterQueue's
// reservations.
func judgeReserved(who string, steps []step, per int64, limited bool, reserved map[string]reservation, flavors []string, lands func(string) bool) []string {
	var bad []string
	first := ""
	for _, f := range flavors {
		if _, ok := reserved[f]; ok && lands(f) {
			first = f
			break
		}
	}
	if first != "" && (len(steps) == 0 || steps[0].flavor != first) {
		bad = append(bad, fmt.Sprintf("%s: Kueue admits its first workload to %v, not to the reserved flavor %s", who, steps, first))
	}
	for i, s := range steps {
		for _, earlier := range steps[:i] {
			if earlier.flavor == s.flavor {
				bad = append(bad, fmt.Sprintf("%s: Kueue returns to flavor %s after another: %v", who, s.flavor, steps))
			}
		}
		r, ok := reserved[s.flavor]
		if !ok || r.fallsBack {
			continue
		}
		switch {
		case s.gpus > r.gpus:
			bad = append(bad, fmt.Sprintf("%s: Kueue admits %d GPUs to flavor %s, whose reservations hold %d", who, s.gpus, s.flavor, r.gpus))
		case !limited && r.gpus-s.gpus >= per:
			bad = append(bad, fmt.Sprintf("%s: Kueue admits %d GPUs to flavor %s, whose reservations hold %d: room for another workload is left", who, s.gpus, s.flavor, r.gpus))
		}
	}
	return bad
}

// step is how many GPUs Kueue admitted to one flavor in a row.
type step struct {
	flavor string
	gpus   int64
}

// admitAll admits copies of j one by one until Kueue does not fit one (at
// most 256), and leaves the cache as it found it: the flavor of each run
// of admissions and its GPUs, one workload's GPUs, and why the last
// workload waits.
func (k *Kueue) admitAll(ctx context.Context, cq string, j *batchv1.Job) (steps []step, per int64, last string, err error) {
	log := klog.Background()
	clock := clocktesting.NewFakeClock(time.Unix(0, 0))
	podSets, err := JobPodSets(ctx, j)
	if err != nil {
		return nil, 0, "", err
	}
	var assumed []*kueue.Workload
	defer func() { k.forget(ctx, assumed) }()
	for i := 0; i < 256; i++ {
		snap, err := k.cache.Snapshot(ctx)
		if err != nil {
			return nil, 0, "", err
		}
		k.snapshot = snap
		a, wl, err := k.assign(ctx, cq, j.Namespace, fmt.Sprintf("job-%s-%d", j.Name, i), podSets)
		if err != nil {
			return nil, 0, "", err
		}
		if a.RepresentativeMode() != flavorassigner.Fit {
			return steps, per, a.RepresentativeMode().String() + ": " + a.Message(), nil
		}
		flavor, gpus := "", resource.Quantity{}
		for _, ps := range a.PodSets {
			if f := ps.Flavors[keys.ResourceGPU]; f != nil {
				flavor = string(f.Name)
			}
			gpus.Add(ps.Requests[keys.ResourceGPU])
		}
		per = gpus.Value()
		admission := &kueue.Admission{ClusterQueue: kueue.ClusterQueueReference(cq), PodSetAssignments: a.ToAPI(log)}
		workload.SetQuotaReservation(wl, admission, clock)
		if !k.cache.AddOrUpdateWorkload(log, wl) {
			return nil, 0, "", fmt.Errorf("workload %d: Kueue's cache did not take it", i)
		}
		assumed = append(assumed, wl)
		if n := len(steps); n > 0 && steps[n-1].flavor == flavor {
			steps[n-1].gpus += per
		} else {
			steps = append(steps, step{flavor, per})
		}
	}
	return steps, per, "still admitting after 256", nil
}

// bumpReservedGPUs is the tree with every reservation-only flavor's GPU
// quota delta from what derive gave it, in every ClusterQueue.
func bumpReservedGPUs(res *compiler.Result, tr tree.Tree, delta int64) (tree.Tree, error) {
	reserved := reservedPools(res)
	var out []string
	for _, doc := range tree.Docs(tr[tree.KueueQueuesPath]) {
		var cq kueue.ClusterQueue
		if err := tree.Decode(doc, &cq); err != nil {
			return nil, err
		}
		for g := range cq.Spec.ResourceGroups {
			for f := range cq.Spec.ResourceGroups[g].Flavors {
				fq := &cq.Spec.ResourceGroups[g].Flavors[f]
				if r, ok := reserved[string(fq.Name)]; !ok || r.fallsBack {
					continue
				}
				for i := range fq.Resources {
					if fq.Resources[i].Name == keys.ResourceGPU {
						fq.Resources[i].NominalQuota.Add(*resource.NewQuantity(delta, resource.DecimalSI))
					}
				}
			}
		}
		b, err := yaml.Marshal(&cq)
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
	mutant := tree.Tree{}
	for p, b := range tr {
		mutant[p] = b
	}
	mutant[tree.KueueQueuesPath] = []byte(strings.Join(out, "---\n"))
	return mutant, nil
}
