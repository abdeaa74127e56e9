package kueuediff

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/testfleet"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

var generated = flag.Int("fleets", 300, "generated fleets in the differential test")

type fleetCase struct{ name, path string }

func fleetCases(t *testing.T) []fleetCase {
	t.Helper()
	_, dirs, err := testfleet.Examples("../..")
	if err != nil {
		t.Fatal(err)
	}
	var cases []fleetCase
	for _, d := range dirs {
		cases = append(cases, fleetCase{filepath.Base(d), d})
	}
	tmp := t.TempDir()
	for seed := 1; seed <= *generated; seed++ {
		f := filepath.Join(tmp, fmt.Sprintf("gen-%d.json", seed))
		size := fleetgen.Size{Name: "queues", Pools: 4 + seed%5, Classes: 6, Tenants: 3 + seed%4}
		spec := fleetgen.Generate(uint64(seed), size, fleetgen.Options{Queues: true, Kinds: seed%3 == 0, Tricky: seed%5 == 0})
		if err := os.WriteFile(f, fleetgen.JSON(spec), 0o644); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, fleetCase{fmt.Sprintf("seed %d", seed), f})
	}
	return cases
}

// verdict is one side's decision for a tenant's workload of a class.
type verdict struct {
	Admitted bool
	Flavors  map[string]string
	Message  string
}

func (v verdict) String() string {
	if v.Admitted {
		return fmt.Sprintf("admitted to %v", v.Flavors)
	}
	return v.Message
}

type disagreement struct {
	fleet, tenant, class string
	ours, theirs         verdict
	job                  []byte
	queue                []byte
}

func (d disagreement) String() string {
	return fmt.Sprintf("%s: tenant %s, class %s:\n  checker: %s\n  Kueue:   %s\n--- workload\n%s--- ClusterQueues, Cohorts, ResourceFlavors\n%s",
		d.fleet, d.tenant, d.class, d.ours, d.theirs, d.job, d.queue)
}

// TestDifferential asks Kueue v0.19.2's own flavor assigner, over a cache
// built from the emitted objects, where it admits one workload of every
// queued class of every tenant, on an empty cluster, and requires the
// checker's Kueue model to say the same: admitted or not, to which flavor,
// and in Kueue's words (which covers Kueue's flavor matching for TAS).
//
// A workload the checker admits on quota to a TAS flavor, which Kueue then
// places by topology (FindTopologyAssignmentsForWorkload), is judged on
// its pool's standing nodes, synced into Kueue's TAS cache under each
// Labelling: Kueue must fit it under Worst iff kueuemodel.TASFit is Sure,
// under Best iff it May, and otherwise refuse it in the words of
// Fit.NotFit. Full-generator fleets with a TAS pool add such workloads:
// every queued class is also steered to each TAS flavor of its
// ClusterQueue (as written where Kueue places it by topology, and, for a
// Job, with every request the Topology allows), and each workload placed
// by topology is judged again on every count of standing nodes up to its
// pool's max size.
func TestDifferential(t *testing.T) {
	ctx := context.Background()
	crds, err := crdtest.Load(upstream.Kueue, upstream.KueueCRDs)
	if err != nil {
		t.Fatal(err)
	}
	st := newDiffStats()
	var bad []disagreement
	cases := append(fleetCases(t), tasFleetCases(t, *tasFleets)...)
	for _, fc := range cases {
		b, _ := diffFleet(ctx, t, crds, fc, nil, st)
		bad = append(bad, b...)
	}
	t.Logf("tenant × queued class workloads compared: %d %v; admitted %d, refused %d %v; steered to a TAS flavor and not placed by topology: %d", st.compared, summary(st.kinds), st.admitted, st.compared-st.admitted, summary(st.reasons), st.steered)
	for _, k := range slices.Sorted(maps.Keys(st.roled)) {
		t.Logf("%s: %d workloads of its PodSets compared, %d admitted", k, st.roled[k][0], st.roled[k][1])
	}
	if len(st.roled) < 5 {
		t.Errorf("ML kinds compared: %v, want JobSet, LeaderWorkerSet, PyTorchJob, RayCluster and RayJob", slices.Sorted(maps.Keys(st.roled)))
	}
	t.Logf("placed by topology with a bound: %d workloads, one in %d judged on a random labelling: %d verdicts", st.bounded, randomEvery, st.labellings)
	if st.labellings < *tasFloor/10 {
		t.Errorf("%d workloads with a bound judged on a random labelling (want %d or more): the random labellings no longer test the bounds", st.labellings, *tasFloor/10)
	}
	for _, l := range Labellings {
		ts := st.tas[l]
		t.Logf("placed by topology, %s labelling (%d fleets): %d compared (%d with the pool's standing nodes varied, %d sliced, %d on declared domains), fit %d, refused %d %v", l, st.tasFleets, ts.compared, ts.varied, ts.sliced, ts.declared, ts.fit, ts.compared-ts.fit, summary(ts.refused))
	}
	if st.compared < 1000 {
		t.Errorf("only %d workloads compared: the generator no longer exercises Kueue", st.compared)
	}
	for _, l := range Labellings {
		if ts := st.tas[l]; ts.compared < *tasFloor || ts.fit == 0 || ts.fit == ts.compared {
			t.Errorf("%s labelling: %d workloads placed by topology compared (want %d or more), %d fit: the fleets no longer exercise Kueue's TAS", l, ts.compared, *tasFloor, ts.fit)
		}
		if ts := st.tas[l]; ts.sliced < *tasFloor/10 || ts.declared < *tasFloor/10 {
			t.Errorf("%s labelling: %d sliced workloads and %d on declared domains (want %d of each): the fleets no longer exercise slices and declared domains", l, ts.sliced, ts.declared, *tasFloor/10)
		}
	}
	for i, d := range bad {
		if i == *show {
			t.Errorf("... and %d more disagreements", len(bad)-*show)
			break
		}
		t.Error(d)
	}
	if len(bad) > 0 {
		t.Errorf("%d of %d verdicts: the checker and Kueue disagree", len(bad), st.compared+st.steered+st.tas[Worst].compared+st.tas[Best].compared+st.labellings)
	}
}

func diffFleet(ctx context.Context, t *testing.T, crds *crdtest.Validator, fc fleetCase, broken []diffOptions, st *diffStats) (bad []disagreement, caught [][]disagreement) {
	caught = make([][]disagreement, len(broken))
	t.Helper()
	res, err := compiler.Check([]string{fc.path})
	if err != nil {
		t.Fatalf("%s: %v", fc.name, err)
	}
	theirs, err := Load(ctx, crds, res.Tree)
	if err != nil {
		t.Fatalf("%s: Kueue's cache: %v", fc.name, err)
	}
	ours, err := kueuemodel.New(res.Typed())
	if err != nil {
		t.Fatalf("%s: %v", fc.name, err)
	}
	cl, err := res.Cluster()
	if err != nil {
		t.Fatalf("%s: %v", fc.name, err)
	}
	var items []tasItem
	for _, q := range compiler.KueueIntent(res.Fleet) {
		ns := q.Namespace
		for _, class := range q.Classes {
			raw := res.Tree[tree.ClassExample(class)]
			// Kueue's own integration makes the workload: a Job's
			// PodSet, a StatefulSet's pod group, a Deployment's pod.
			w, err := ClassWorkload(ctx, res.Tree, class, ns)
			if err != nil {
				t.Fatalf("%s: %s: %v", fc.name, class, err)
			}
			st.kinds[w.Kind]++
			c := cl.Class(class)
			if len(c.PodSets) > 0 {
				// An ML kind: its whole workload of several PodSets.
				for i, opts := range broken {
					if d := diffRoled(ctx, t, theirs, ours, cl, q, c, w, raw, opts, nil); d != nil {
						caught[i] = append(caught[i], disagreement{fc.name, q.Tenant, class, d[0], d[1], raw, nil})
					}
				}
				if d := diffRoled(ctx, t, theirs, ours, cl, q, c, w, raw, diffOptions{}, st); d != nil {
					bad = append(bad, disagreement{fc.name, q.Tenant, class, d[0], d[1], raw, kueueObjects(res.Tree)})
				}
				continue
			}
			request, pods := ours.ClassRequest(c, ns), kueuemodel.UnitPods(c)
			// judge compares the verdicts on the workload, or keeps it
			// for the labellings when the checker admits it and Kueue
			// then places it by topology.
			judge := func(pod *corev1.Pod, w *Workload, where string, steered bool) {
				a := ours.Assign(q.ClusterQueue, pod, request, pods)
				if a.Admitted() && a.TAS {
					flavor := a.Flavor()
					topology, levels, ok := theirs.TASFlavor(flavor)
					p := PoolOf(cl, theirs.pool(flavor))
					if !ok || p == nil {
						t.Fatalf("%s: tenant %s, class %s: the checker places it by topology on flavor %s, which Kueue holds no Topology or pool of", fc.name, q.Tenant, where, flavor)
					}
					it := tasItem{q.Tenant, where, q.ClusterQueue, ns, w, a, kueuemodel.TopologyOf(pod), topology, levels, theirs.Domains[flavor], ours.Domains[flavor], p, *p, res.Report.Cell(class, flavor), raw}
					items = append(items, it)
					// And on every other count of standing nodes the
					// pool may have, up to its max size.
					{
						for n := range p.MaxNodes + 1 {
							if n != p.Standing {
								it.pool.Standing = n
								items = append(items, it)
							}
						}
					}
					return
				}
				k, err := theirs.AssignPodSets(ctx, q.ClusterQueue, ns, w.Name, w.PodSets)
				if err != nil {
					t.Fatalf("%s: tenant %s, class %s: %v", fc.name, q.Tenant, where, err)
				}
				o := verdict{a.Admitted(), names(a.Flavors), a.Message}
				want := verdict{k.Mode == "Fit", names(k.Flavors), k.Message}
				if !want.Admitted {
					want.Flavors = map[string]string{}
				}
				if steered {
					st.steered++
				} else {
					st.compared++
					if want.Admitted {
						st.admitted++
					} else {
						st.reasons[kind(want.Message)]++
					}
				}
				if o.Admitted != want.Admitted || o.Message != want.Message || !maps.Equal(o.Flavors, want.Flavors) {
					bad = append(bad, disagreement{fc.name, q.Tenant, where, o, want, raw, kueueObjects(res.Tree)})
				}
			}
			judge(c.Pod, w, class, false)
			// Each TAS flavor of the ClusterQueue is tried alone, the
			// workload steered there (the pool's label in its
			// nodeSelector, as TestSplitHoldsAGang does): as written
			// where Kueue places it by topology, and a Job with each
			// request its Topology allows (required or preferred at each
			// level, unconstrained), the annotations Kueue's Job
			// integration reads.
			first, asWritten := "", ours.TASRequested(q.ClusterQueue, kueuemodel.TopologyOf(c.Pod))
			if a := ours.Assign(q.ClusterQueue, c.Pod, request, pods); a.Admitted() {
				first = a.Flavor()
			}
			for _, f := range theirs.flavorsOf(q.ClusterQueue) {
				_, levels, ok := theirs.TASFlavor(f)
				if !ok {
					continue
				}
				pool := theirs.pool(f)
				if asWritten && f != first {
					pod, sw := variant(ctx, t, c.Pod, w, pool, nil)
					judge(pod, sw, fmt.Sprintf("%s (steered to flavor %s)", class, f), true)
				}
				if w.Job == nil {
					continue
				}
				for _, v := range requestVariants(levels, w.PodSets[0].Count) {
					pod, sw := variant(ctx, t, c.Pod, w, pool, v)
					judge(pod, sw, fmt.Sprintf("%s (steered to flavor %s, %s)", class, f, describe(v)), true)
				}
			}
		}
	}
	if len(items) > 0 {
		st.tasFleets++
	}
	// The workloads of one pool share its standing nodes: sorted so, each
	// set is synced into Kueue's TAS cache once per labelling.
	slices.SortStableFunc(items, func(a, b tasItem) int {
		return cmp.Or(strings.Compare(a.pool.Name, b.pool.Name), cmp.Compare(a.pool.Standing, b.pool.Standing))
	})
	for _, l := range Labellings {
		synced := ""
		for _, it := range items {
			node := ClassNode(&it.pool, it.cell, l)
			if key := fmt.Sprintf("%s/%s/%d", it.pool.Name, node.Name, it.pool.Standing); key != synced {
				if err := theirs.SyncNodes(ctx, StandingNodes(&it.pool, node, it.levels, it.domains, l)); err != nil {
					t.Fatalf("%s: %v", fc.name, err)
				}
				synced = key
			}
			k, err := theirs.AssignPodSets(ctx, it.cq, it.ns, it.w.Name, it.w.PodSets)
			if err != nil {
				t.Fatalf("%s: tenant %s, class %s: %v", fc.name, it.tenant, it.class, err)
			}
			want := verdict{k.Mode == "Fit", names(k.Flavors), k.Message}
			// Where the class does not land on the pool, Kueue's TAS
			// excludes every standing node, and says why after the
			// checker's words (notFitMessage's exclusion stats).
			expect := func(opts diffOptions) (verdict, bool) {
				o := it.expect(l, opts)
				if suffix := fmt.Sprintf(". Total nodes: %d; excluded: ", it.pool.Standing); !o.Admitted && (it.cell == nil || !it.cell.Fits) && it.pool.Standing > 0 &&
					strings.HasPrefix(want.Message, o.Message+suffix) {
					o.Message = want.Message
					return o, true
				}
				return o, false
			}
			o, excluded := expect(diffOptions{})
			if !want.Admitted {
				want.Flavors = map[string]string{}
			}
			where := fmt.Sprintf("%s (TAS on %d standing node(s) of pool %s, %s labelling)", it.class, it.pool.Standing, it.pool.Name, l)
			for i, opts := range broken {
				if ob, _ := expect(opts); ob.Admitted != want.Admitted || ob.Message != want.Message || !maps.Equal(ob.Flavors, want.Flavors) {
					caught[i] = append(caught[i], disagreement{fc.name, it.tenant, where, ob, want, it.raw, nil})
				}
			}
			ts := &st.tas[l]
			ts.compared++
			if it.pool.Standing != it.compiled.Standing {
				ts.varied++
			}
			if it.topo.SliceSize > 0 {
				ts.sliced++
			}
			if len(it.domains) > 0 {
				ts.declared++
			}
			switch {
			case want.Admitted:
				ts.fit++
			case excluded:
				ts.refused["TAS excludes every node"]++
			default:
				ts.refused[kind(want.Message)]++
			}
			if o.Admitted != want.Admitted || o.Message != want.Message || !maps.Equal(o.Flavors, want.Flavors) {
				bad = append(bad, disagreement{fc.name, it.tenant, where, o, want, it.raw, kueueObjects(res.Tree)})
			}
		}
	}
	if broken == nil {
		bad = append(bad, randomBounds(ctx, t, theirs, items, fc, st)...)
	}
	return bad, caught
}

func names[K ~string](m map[K]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[string(k)] = v
	}
	return out
}

// kind is a refusal's first reason with its figures and names dropped.
func kind(msg string) string {
	msg = strings.TrimPrefix(msg, "couldn't assign flavors to pod set main: ")
	switch {
	case strings.HasPrefix(msg, "insufficient quota"):
		return "insufficient quota"
	case strings.HasPrefix(msg, "untolerated taint"):
		return "untolerated taint"
	case strings.Contains(msg, "doesn't match node affinity"):
		return "node affinity"
	case strings.Contains(msg, "unavailable in ClusterQueue"):
		return "resource unavailable"
	case strings.Contains(msg, "does not support TopologyAwareScheduling"):
		return "TAS requested, flavor without"
	case strings.Contains(msg, "supports only TopologyAwareScheduling"):
		return "TAS flavor, not requested"
	case strings.Contains(msg, "does not contain the requested level"):
		return "TAS level missing"
	case strings.Contains(msg, "doesn't allow to fit any"):
		return "TAS fits none"
	case strings.Contains(msg, "allows to fit only"):
		return "TAS fits some"
	case strings.HasPrefix(msg, "no topology domains"):
		return "TAS no domains"
	}
	return msg
}

func summary(m map[string]int) string {
	keys := slices.Collect(maps.Keys(m))
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, m[k]))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func kueueObjects(tr tree.Tree) []byte {
	var b []byte
	for _, p := range []string{tree.KueueQueuesPath, tree.KueueCohortsPath, tree.KueueFlavorsPath} {
		b = append(b, tr[p]...)
	}
	return b
}

// TestDifferentialCatchesTAS proves the TAS half of the differential can
// fail: a checker whose TASFit counted a pool's max size as its standing
// nodes (as if Kueue's TAS placed pods on nodes an autoscaler would add),
// took a required level as preferred (the pods spread over the level's
// domains), counted a sliced request's pods one by one, or ignored a
// pool's declared domains, disagrees with Kueue, and only on workloads
// Kueue places by topology.
