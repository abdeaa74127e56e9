package kueuediff

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	wirekueue "github.com/gpufleet/gpufleet/compiler/wire/kueue"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// The TAS half of the differential: fleets with TAS pools, the requests
// and standing counts each TAS workload is judged at, and the deliberate
// bugs it catches.

var (
	show      = flag.Int("show", 5, "TestDifferential shows this many disagreements")
	tasFleets = flag.Int("tas-fleets", 100, "generated full fleets with a TAS pool in the differential test")
	tasFloor  = flag.Int("tas-floor", 1000, "TestDifferential fails below this many workloads placed by topology under each labelling")
)

// tasFleetCases are the first n full-generator fleets (fleetgen.S,
// Options.Full) with a pool that has Kueue TAS.
func tasFleetCases(t *testing.T, n int) []fleetCase {
	t.Helper()
	tmp := t.TempDir()
	var cases []fleetCase
	for seed := 1; len(cases) < n; seed++ {
		spec := fleetgen.Generate(uint64(seed), fleetgen.S, fleetgen.Options{Full: true})
		tas := false
		for _, p := range spec.Pools {
			tas = tas || p.Topology
		}
		if !tas {
			continue
		}
		f := filepath.Join(tmp, fmt.Sprintf("full-%d.json", seed))
		if err := os.WriteFile(f, fleetgen.JSON(spec), 0o644); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, fleetCase{fmt.Sprintf("full seed %d", seed), f})
	}
	return cases
}

// diffOptions break the checker's side on purpose, to prove the
// differential catches it (TestDifferentialCatchesTAS).
type diffOptions struct {
	// standingAsMax has TASFit count a pool's max size as its standing
	// nodes, as if TAS placed on nodes an autoscaler would add.
	standingAsMax bool
	// requiredAsPreferred has TASFit take a required level as preferred.
	requiredAsPreferred bool
	// slicesAsPods has TASFit ignore a request's slices.
	slicesAsPods bool
	// undeclared has TASFit ignore the pools' declared domains.
	undeclared bool
	// jobSetReplicas has the checker count a JobSet's PodSet as its
	// replicated job's replicas, not replicas × parallelism.
	jobSetReplicas bool
	// trainJobAncestor has the checker name a TrainJob's PodSet after its
	// ancestor label ("trainer"), not the runtime's replicated job.
	trainJobAncestor bool
	// trainJobReplicas has it count a TrainJob's trainer as its
	// replicated job's one Job, not the TrainJob's numNodes pods.
	trainJobReplicas bool
}

// tasStats count the workloads placed by topology under one labelling.
type tasStats struct {
	// varied are those on a pool whose standing nodes the test set.
	compared, varied, fit int
	// sliced are those in slices; declared, on a pool that declares its
	// domains.
	sliced, declared int
	refused          map[string]int
}

// diffStats count what TestDifferential compared.
type diffStats struct {
	compared, admitted int
	reasons, kinds     map[string]int
	// steered are the workloads steered to a TAS flavor that Kueue does
	// not then place by topology.
	steered   int
	tasFleets int
	tas       [2]tasStats // by Labelling
	// bounded are the workloads whose fit is a bound, each judged again
	// on random labellings (randomBounds).
	bounded, labellings int
	// roled are the ML kinds' workloads compared, and admitted, by kind.
	roled map[string]*[2]int
}

func newDiffStats() *diffStats {
	st := &diffStats{reasons: map[string]int{}, kinds: map[string]int{}, roled: map[string]*[2]int{}}
	for i := range st.tas {
		st.tas[i].refused = map[string]int{}
	}
	return st
}

// tasItem is a workload the checker admits to a TAS flavor and Kueue then
// places by topology: judged under each labelling.
type tasItem struct {
	tenant, class, cq, ns string
	w                     *Workload
	ours                  kueuemodel.Assignment
	topo                  kueuemodel.TopologyRequest
	topology              string
	levels                []string
	// domains are the flavor's declared domains as Kueue's side reads
	// them, which the labellings honour; declared, as the checker's model
	// reads them, which its verdicts use.
	domains, declared map[string]int64
	// compiled is the pool as compiled; pool is the same but for its
	// standing nodes, which the test may set to any count up to its max.
	compiled *sched.Pool
	pool     sched.Pool
	cell     *sched.Cell
	raw      []byte
}

// requestVariants are the topology requests a Topology of levels allows
// a gang of count pods: required and preferred at each level, and
// unconstrained; each level's in slices of the gang's smallest divisor
// above one, at the host and at the level itself; and two Kueue refuses,
// a slice above its level and a slice at a level the Topology lacks.
func requestVariants(levels []string, count int32) []map[string]string {
	var out []map[string]string
	for _, l := range levels {
		out = append(out, map[string]string{wirekueue.AnnotationRequiredTopology: l}, map[string]string{wirekueue.AnnotationPreferredTopology: l})
	}
	out = append(out, map[string]string{wirekueue.AnnotationUnconstrainedTopology: "true"})
	if count < 2 || len(levels) == 0 {
		return out
	}
	size := int32(2)
	for count%size != 0 {
		size++
	}
	host := levels[len(levels)-1]
	sliced := func(mode, level, slice string) map[string]string {
		return map[string]string{mode: level, wirekueue.AnnotationSliceTopology: slice, wirekueue.AnnotationSliceSize: strconv.Itoa(int(size))}
	}
	for _, l := range levels {
		for _, s := range slices.Compact([]string{host, l}) {
			out = append(out, sliced(wirekueue.AnnotationRequiredTopology, l, s), sliced(wirekueue.AnnotationPreferredTopology, l, s))
		}
	}
	return append(out, sliced(wirekueue.AnnotationRequiredTopology, host, levels[0]),
		sliced(wirekueue.AnnotationPreferredTopology, levels[0], "example.com/no-such-level"))
}

// describe names a request variant.
func describe(v map[string]string) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(v)) {
		out = append(out, strings.TrimPrefix(k, "kueue.x-k8s.io/podset-")+" "+v[k])
	}
	if len(out) == 0 {
		return "as written"
	}
	return strings.Join(out, ", ")
}

// variant is the pod and the workload steered to pool, with the topology
// request v in place of the template's when v is set: a Job's PodSets made
// again by Kueue's Job integration.
func variant(ctx context.Context, t *testing.T, pod *corev1.Pod, w *Workload, pool string, v map[string]string) (*corev1.Pod, *Workload) {
	t.Helper()
	pod = pod.DeepCopy()
	pod.Spec.NodeSelector = steer(pod.Spec.NodeSelector, pool)
	sw := *w
	if v == nil {
		sw.PodSets = slices.Clone(w.PodSets)
		sw.PodSets[0] = *sw.PodSets[0].DeepCopy()
		sw.PodSets[0].Template.Spec.NodeSelector = steer(sw.PodSets[0].Template.Spec.NodeSelector, pool)
		return pod, &sw
	}
	j := w.Job.DeepCopy()
	j.Spec.Template.Spec.NodeSelector = steer(j.Spec.Template.Spec.NodeSelector, pool)
	for _, m := range []*map[string]string{&pod.Annotations, &j.Spec.Template.Annotations} {
		for _, k := range []string{wirekueue.AnnotationRequiredTopology, wirekueue.AnnotationPreferredTopology, wirekueue.AnnotationUnconstrainedTopology, wirekueue.AnnotationSliceTopology, wirekueue.AnnotationSliceSize} {
			delete(*m, k)
		}
		if *m == nil {
			*m = map[string]string{}
		}
		maps.Copy(*m, v)
	}
	var err error
	if sw.PodSets, err = JobPodSets(ctx, j); err != nil {
		t.Fatal(err)
	}
	sw.Job = j
	return pod, &sw
}

// steer is a nodeSelector with the pool's label added.
func steer(sel map[string]string, pool string) map[string]string {
	out := map[string]string{keys.LabelPool: pool}
	maps.Copy(out, sel)
	return out
}

// expect is the checker's verdict on the workload placed by topology
// under labelling l: admitted where kueuemodel.TASFit says the pods fit
// (Sure on the worst, May on the best), refused otherwise with its Reason
// for the pods it places there.
func (it tasItem) expect(l Labelling, opts diffOptions) verdict {
	p, topo := it.pool, it.topo
	if opts.standingAsMax {
		p.Standing = p.MaxNodes
	}
	if opts.requiredAsPreferred {
		topo.Required = false
	}
	if opts.slicesAsPods {
		topo.SliceLevel, topo.SliceSize = "", 0
	}
	domains := it.declared
	if opts.undeclared {
		domains = nil
	}
	count := int64(it.w.PodSets[0].Count)
	fit := kueuemodel.TASFit(&p, it.cell, it.levels, domains, topo, count)
	ok, placed := fit.Sure(), fit.Worst
	if l == Best {
		ok, placed = fit.May(), fit.Best
	}
	if ok {
		return verdict{true, names(it.ours.Flavors), ""}
	}
	return verdict{false, map[string]string{}, "couldn't assign flavors to pod set main: " + fit.NotFit(it.topology, placed)}
}

func TestDifferentialCatchesTAS(t *testing.T) {
	ctx := context.Background()
	crds, err := crdtest.Load(upstream.Kueue, upstream.KueueCRDs)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		opts diffOptions
	}{
		{"standing nodes taken as the max size", diffOptions{standingAsMax: true}},
		{"a required level taken as preferred", diffOptions{requiredAsPreferred: true}},
		{"slices taken as single pods", diffOptions{slicesAsPods: true}},
		{"declared domains ignored", diffOptions{undeclared: true}},
	}
	// One pass over the fleets: Kueue's verdicts do not depend on the
	// checker's bugs, so each broken expectation is held to the same ones.
	broken := make([]diffOptions, len(cases))
	for i, tc := range cases {
		broken[i] = tc.opts
	}
	caught := make([][]disagreement, len(cases))
	fleets := 0
	for _, fc := range tasFleetCases(t, *tasFleets) {
		_, c := diffFleet(ctx, t, crds, fc, broken, newDiffStats())
		fleets++
		done := true
		for i := range c {
			caught[i] = append(caught[i], c[i]...)
			done = done && len(caught[i]) >= 10
		}
		if done {
			break
		}
	}
	for i, tc := range cases {
		if len(caught[i]) < 10 {
			t.Errorf("%s: went unnoticed over %d fleets: %d disagreements", tc.name, fleets, len(caught[i]))
			continue
		}
		for _, d := range caught[i] {
			if !strings.Contains(d.class, " standing node(s) of pool ") {
				t.Errorf("%s: caught on a workload Kueue does not place by topology: %s", tc.name, d)
			}
		}
		d := caught[i][0]
		t.Logf("%s: %d disagreements in %d fleets, e.g. %s: tenant %s, class %s:\n  checker: %s\n  Kueue:   %s", tc.name, len(caught[i]), fleets, d.fleet, d.tenant, d.class, d.ours, d.theirs)
	}
}

// randomEvery is how sparsely randomBounds samples the bounded
// workloads: each syncs Kueue's TAS cache and takes a snapshot again,
// about 50 ms.
const randomEvery = 3

// randomBounds holds the checker's bounds to Kueue on labellings between
// the extremes: for every randomEvery-th workload whose fit is a bound (a
// network level, undeclared), Kueue's TAS on a random nesting of the
// standing nodes (RandomNodes, of the class's Worst node) must place as
// many of its pods as TASFit's Worst, and no more than its Best. The draw
// is seeded by the workload, so a failure reproduces.
func randomBounds(ctx context.Context, t *testing.T, theirs *Kueue, items []tasItem, fc fleetCase, st *diffStats) []disagreement {
	var bad []disagreement
	for i, it := range items {
		fit := kueuemodel.TASFit(&it.pool, it.cell, it.levels, it.declared, it.topo, int64(it.w.PodSets[0].Count))
		if fit.Worst == fit.Best || fit.Above != "" {
			continue
		}
		if st.bounded++; st.bounded%randomEvery != 0 {
			continue
		}
		r := rand.New(rand.NewPCG(uint64(i), uint64(it.pool.Standing)))
		nodes := RandomNodes(&it.pool, ClassNode(&it.pool, it.cell, Worst), it.levels, it.domains, r)
		if err := theirs.SyncNodes(ctx, nodes); err != nil {
			t.Fatalf("%s: %v", fc.name, err)
		}
		k, err := theirs.AssignPodSets(ctx, it.cq, it.ns, it.w.Name, it.w.PodSets)
		if err != nil {
			t.Fatalf("%s: tenant %s, class %s: %v", fc.name, it.tenant, it.class, err)
		}
		st.labellings++
		placed, ok := Placed(k, fit.Count, fit.SliceSize)
		if ok && placed >= min(fit.Worst, fit.Count) && placed <= min(fit.Best, fit.Count) {
			continue
		}
		where := fmt.Sprintf("%s (TAS on %d standing node(s) of pool %s, a random labelling: %s)", it.class, it.pool.Standing, it.pool.Name, labelPaths(nodes, it.levels))
		o := verdict{Message: fmt.Sprintf("between %d and %d of %d pods", fit.Worst, fit.Best, fit.Count)}
		bad = append(bad, disagreement{fc.name, it.tenant, where, o, verdict{k.Mode == "Fit", names(k.Flavors), k.Message}, it.raw, nil})
	}
	return bad
}

// labelPaths shows each node's network nodes, widest first.
func labelPaths(nodes []*corev1.Node, levels []string) string {
	var out []string
	for _, n := range nodes {
		var p []string
		for _, l := range levels[:len(levels)-1] {
			p = append(p, strings.TrimPrefix(n.Labels[l], "nn-"))
		}
		out = append(out, strings.Join(p, "/"))
	}
	return strings.Join(out, " ")
}
