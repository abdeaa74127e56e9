//go:build composed

// The Kueue half of the composed differential (scripts/composed.sh): Kueue
// v0.19.2 admits every queued unit and pins it to its flavor, and hands
// the pinned pod templates to the kube-scheduler half
// (ladder/kube-scheduler/composed_test.go), which places them. The two
// halves are modules of their own (Kueue needs k8s.io v0.36, the scheduler
// rung is v1.35.4): a cluster composes them through the API server, this
// rung through a JSON file.
package kueuediff

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	clocktesting "k8s.io/utils/clock/testing"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/podset"
	"sigs.k8s.io/kueue/pkg/scheduler/flavorassigner"
	"sigs.k8s.io/kueue/pkg/workload"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/handoff"
	"github.com/gpufleet/gpufleet/internal/testfleet"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

var (
	composedOut = flag.String("composed-out", "", "TestComposedAdmit writes its records for the kube-scheduler half here (JSON)")
	pairRows    = flag.Int("pair-rows", 8, "queued classes in each of the pair fleets (fleetgen.PairFleets), which cover every pair of features")
)

// composedFleets are the example fleets, the generated ones with queued
// Deployments, StatefulSets, gangs, waves, hard spreads and anti-affinity
// (fleetgen Options.Composed) and the pair fleets (fleetgen.PairFleets),
// whose specs are written into dir so that the kube-scheduler half
// compiles the very same fleets.
func composedFleets(t *testing.T, dir string, seeds int) []composedFleet {
	t.Helper()
	_, dirs, err := testfleet.Examples("../..")
	if err != nil {
		t.Fatal(err)
	}
	var out []composedFleet
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, composedFleet{name: filepath.Base(d), spec: abs})
	}
	// A queued class of each ML kind, its roles admitted and placed.
	kinds, err := filepath.Abs("../../compiler/testdata/kinds/fleet.cue")
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, composedFleet{name: "kinds", spec: kinds})
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A role kube-scheduler cannot place whole (KueueRoles' testscript):
	// the composed half must place 2 of its 3 pods, as the checker says.
	ar, err := txtar.ParseFile("../../cmd/gpufleet/testdata/script/broken_kueue_role_short.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "fleet.cue" {
			p, err := filepath.Abs(filepath.Join(dir, "role-short.cue"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			out = append(out, composedFleet{name: "role short", spec: p})
		}
	}
	for seed := 1; seed <= seeds; seed++ {
		f, err := filepath.Abs(filepath.Join(dir, fmt.Sprintf("seed-%d.json", seed)))
		if err != nil {
			t.Fatal(err)
		}
		size := fleetgen.Size{Name: "queues", Pools: 4 + seed%5, Classes: 6, Tenants: 3 + seed%4}
		spec := fleetgen.Generate(uint64(seed), size, fleetgen.Options{Queues: true, Composed: true, Tricky: seed%5 == 0})
		if err := os.WriteFile(f, fleetgen.JSON(spec), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, composedFleet{name: fmt.Sprintf("seed %d", seed), spec: f, seed: seed})
	}
	// The pair fleets: a covering array of the features the kube-scheduler
	// half's pair table counts (fleetgen features.go).
	for i, spec := range fleetgen.PairFleets(1, fleetgen.PairOptions{Rows: *pairRows}) {
		f, err := filepath.Abs(filepath.Join(dir, fmt.Sprintf("pairs-%d.json", i+1)))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, fleetgen.JSON(spec), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, composedFleet{name: fmt.Sprintf("pairs %d", i+1), spec: f})
	}
	return out
}

type composedFleet struct {
	name, spec string
	seed       int
}

// admitOptions break Kueue on purpose, to prove the differential catches
// it (TestComposedAdmitCatchesQuotaIgnored).
type admitOptions struct {
	// ignoreQuota admits all of a Deployment's replicas to the flavor of
	// its first, as if Kueue did not count the ones before.
	ignoreQuota bool
}

// composedStats count what the Kueue half compared, by unit kind.
type composedStats struct {
	fleets, records                int
	units, admitted                map[string]int
	deploymentsSplit, deployPartly int
}

func unitKind(kind string, gang bool) string {
	if kind == keys.KindJob {
		if gang {
			return "Job gang"
		}
		return "Job waves"
	}
	return kind
}

func (s composedStats) String() string {
	var kinds []string
	order := []string{"Job gang", "Job waves", keys.KindStatefulSet, keys.KindDeployment}
	for _, k := range slices.Sorted(maps.Keys(s.units)) {
		if !slices.Contains(order, k) {
			order = append(order, k) // the ML kinds, whole workloads
		}
	}
	for _, k := range order {
		kinds = append(kinds, fmt.Sprintf("%s %d (%d admitted)", k, s.units[k], s.admitted[k]))
	}
	return fmt.Sprintf("%d fleets, queued units by kind: %s; Deployments over several flavors %d, Deployments admitted in part %d; %d records",
		s.fleets, strings.Join(kinds, ", "), s.deploymentsSplit, s.deployPartly, s.records)
}

// TestComposedAdmit is the Kueue half of the composed differential. For
// every tenant's queued class of every fleet it builds the Workload's
// PodSets with Kueue's own integrations (a Job's; one pod of a
// StatefulSet's pod group, or of a Deployment), and then:
//
//   - a Job or StatefulSet: Kueue's flavor assigner on an empty cluster
//     must pick the checker's flavor, and the flavors Kueue may admit the
//     whole unit to (each tried alone, the unit steered there by the
//     flavor's pool label) must be the checker's Pinned flavors, in order;
//   - a Deployment: its replicas, admitted one by one as Kueue's scheduler
//     does (each assumed in the cache before the next cycle's snapshot),
//     must fill the checker's Pinned flavors with its Admitted counts.
//
// Each (unit, flavor) is written with the pod template pinned there by
// Kueue's pkg/podset FromAssignment and Merge, for the kube-scheduler
// half.
func TestComposedAdmit(t *testing.T) {
	if *composedOut == "" {
		t.Fatal("-composed-out=FILE is required (scripts/composed.sh sets it)")
	}
	start := time.Now()
	ctx := context.Background()
	crds, err := crdtest.Load(upstream.Kueue, upstream.KueueCRDs)
	if err != nil {
		t.Fatal(err)
	}
	fleets := composedFleets(t, filepath.Join(filepath.Dir(*composedOut), "fleets"), *generated)
	st := composedStats{units: map[string]int{}, admitted: map[string]int{}}
	var records []handoff.Record
	var bad []string
	for _, fc := range fleets {
		recs, b := admitFleet(ctx, t, crds, fc, admitOptions{}, &st)
		records = append(records, recs...)
		bad = append(bad, b...)
	}
	st.records = len(records)
	raw, err := json.Marshal(records)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*composedOut, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s; %d disagreements; %s", st, len(bad), time.Since(start).Round(time.Second))
	fmt.Printf("composed (Kueue half): %s; %d disagreements\n", st, len(bad))
	if st.fleets < *generated {
		t.Errorf("only %d fleets", st.fleets)
	}
	if n := st.units[keys.KindDeployment]; n == 0 || st.deploymentsSplit == 0 {
		t.Errorf("%d queued Deployments, %d over several flavors: the generator no longer exercises admission pod by pod", n, st.deploymentsSplit)
	}
	for i, d := range bad {
		if i == 10 {
			t.Errorf("... and %d more disagreements", len(bad)-10)
			break
		}
		t.Error(d)
	}
	if len(bad) > 0 {
		t.Errorf("%d disagreements between the checker and Kueue", len(bad))
	}
}

// TestComposedAdmitCatchesQuotaIgnored proves the Kueue half can fail: a
// Kueue that admitted all of a Deployment's replicas to the first
// flavor, ignoring its quota, disagrees with the checker on Deployments
// whose replicas fill one flavor and spill into the next. The separate
// Kueue differential admits one workload on an empty cluster and would
// not notice.
func TestComposedAdmitCatchesQuotaIgnored(t *testing.T) {
	ctx := context.Background()
	crds, err := crdtest.Load(upstream.Kueue, upstream.KueueCRDs)
	if err != nil {
		t.Fatal(err)
	}
	fleets := composedFleets(t, t.TempDir(), 40)
	var caught []string
	for _, fc := range fleets {
		if fc.seed == 0 {
			continue
		}
		st := composedStats{units: map[string]int{}, admitted: map[string]int{}}
		if _, bad := admitFleet(ctx, t, crds, fc, admitOptions{}, &st); len(bad) > 0 {
			t.Fatalf("%s disagrees unmutated: %v", fc.name, bad)
		}
		_, bad := admitFleet(ctx, t, crds, fc, admitOptions{ignoreQuota: true}, &st)
		caught = append(caught, bad...)
		if len(caught) >= 3 {
			break
		}
	}
	if len(caught) < 3 {
		t.Fatalf("a Kueue ignoring quota went unnoticed: %d disagreements", len(caught))
	}
	for _, c := range caught {
		if !strings.Contains(c, keys.KindDeployment) {
			t.Errorf("caught outside a Deployment: %s", c)
		}
	}
	t.Logf("caught: %s", strings.Join(caught, "\n"))
}

// admitFleet compiles the fleet and follows each queued unit through
// Kueue, returning its records and where the checker disagrees.
func admitFleet(ctx context.Context, t *testing.T, crds *crdtest.Validator, fc composedFleet, opts admitOptions, st *composedStats) ([]handoff.Record, []string) {
	t.Helper()
	res, err := compiler.Compile([]string{fc.spec})
	if err != nil {
		t.Fatalf("%s: %v", fc.name, err)
	}
	k, err := Load(ctx, crds, res.Tree)
	if err != nil {
		t.Fatalf("%s: Kueue's cache: %v", fc.name, err)
	}
	// Kueue places a workload by topology only on nodes that exist: the
	// TAS pools' standing nodes (research's a100-efa), all under one
	// network node.
	cl, err := res.Cluster()
	if err != nil {
		t.Fatalf("%s: %v", fc.name, err)
	}
	if err := k.SyncNodes(ctx, k.FleetNodes(cl, Best)); err != nil {
		t.Fatalf("%s: %v", fc.name, err)
	}
	units := map[[2]string]*check.Unit{}
	for i, u := range res.Report.Units {
		if u.Tenant != "" {
			units[[2]string{u.Tenant, u.Class}] = &res.Report.Units[i]
		}
	}
	st.fleets++
	var records []handoff.Record
	var bad []string
	for _, q := range compiler.KueueIntent(res.Fleet) {
		for _, class := range q.Classes {
			u := units[[2]string{q.Tenant, class}]
			where := fmt.Sprintf("%s: tenant %s, class %s", fc.name, q.Tenant, class)
			if u == nil {
				bad = append(bad, where+": the report lists no unit")
				continue
			}
			w, err := ClassWorkload(ctx, res.Tree, class, q.Namespace)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			base := handoff.Record{Fleet: fc.name, Spec: fc.spec, Seed: fc.seed, Tenant: q.Tenant, Namespace: q.Namespace,
				Class: class, Kind: w.Kind, Gang: u.Gang, Pods: w.Pods, WrittenNodeSelector: w.Template.Spec.NodeSelector}
			where += " (" + w.Kind + ")"
			if len(u.PodSets) > 0 {
				// An ML kind's whole workload, role by role.
				recs, b, err := k.admitRoled(ctx, q.ClusterQueue, base, w, u)
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				for _, d := range b {
					bad = append(bad, where+": "+d)
				}
				st.units[w.Kind]++
				if recs[0].KueueFlavor != "" {
					st.admitted[w.Kind]++
				}
				records = append(records, recs...)
				continue
			}
			if w.Kind != u.Kind {
				bad = append(bad, fmt.Sprintf("%s: the report's unit is a %s", where, u.Kind))
			}
			if got := w.PodSets[0].Count; got != u.Admission {
				bad = append(bad, fmt.Sprintf("%s: Kueue admits %d pods as one workload, the checker %d", where, got, u.Admission))
			}
			var recs []handoff.Record
			var b []string
			if w.Kind == keys.KindDeployment {
				recs, b, err = k.admitDeployment(ctx, q.ClusterQueue, base, w, u, opts)
			} else {
				recs, b, err = k.admitWhole(ctx, q.ClusterQueue, base, w, u)
			}
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			for _, d := range b {
				bad = append(bad, where+": "+d)
			}
			kind := unitKind(w.Kind, u.Gang)
			st.units[kind]++
			if recs[0].KueueFlavor != "" {
				st.admitted[kind]++
			}
			if w.Kind == keys.KindDeployment && recs[0].Flavor != "" {
				if len(recs) > 1 {
					st.deploymentsSplit++
				}
				var n int32
				for _, r := range recs {
					n += r.Admitted
				}
				if n < w.Pods {
					st.deployPartly++
				}
			}
			records = append(records, recs...)
		}
	}
	return records, bad
}

// admitWhole follows a Job's or a StatefulSet's one workload: where Kueue
// admits it on an empty cluster, and every flavor it may be admitted to.
func (k *Kueue) admitWhole(ctx context.Context, cq string, base handoff.Record, w *Workload, u *check.Unit) ([]handoff.Record, []string, error) {
	var bad []string
	a, wl, err := k.assign(ctx, cq, base.Namespace, w.Name, w.PodSets)
	if err != nil {
		return nil, nil, err
	}
	base.KueueFlavor = flavorOf(a)
	if want := checkerFlavor(u); base.KueueFlavor != want {
		bad = append(bad, fmt.Sprintf("Kueue admits it on an empty cluster to flavor %q, the checker to %q (%s)", base.KueueFlavor, want, a.Message()))
	}
	// The flavors Kueue may admit the whole unit to once the ones before
	// are in use: each flavor of the ClusterQueue tried alone, the unit
	// steered there by its pool label, as TestSplitHoldsAGang does.
	var candidates []string
	// The assignment Kueue admits the unit with to each flavor: its
	// PodSetAssignment carries the TAS flavors' topology assignment.
	byFlavor := map[string]*flavorassigner.Assignment{}
	if base.KueueFlavor != "" {
		byFlavor[base.KueueFlavor] = a
		for _, f := range k.flavorsOf(cq) {
			steered := slices.Clone(w.PodSets)
			steered[0] = *steered[0].DeepCopy()
			sel := map[string]string{keys.LabelPool: k.pool(f)}
			maps.Copy(sel, steered[0].Template.Spec.NodeSelector)
			steered[0].Template.Spec.NodeSelector = sel
			sa, _, err := k.assign(ctx, cq, base.Namespace, w.Name, steered)
			if err != nil {
				return nil, nil, err
			}
			if flavorOf(sa) == f {
				candidates = append(candidates, f)
				if _, ok := byFlavor[f]; !ok {
					byFlavor[f] = sa
				}
			}
		}
	}
	var ours []string
	for _, p := range u.Pinned {
		ours = append(ours, p.Flavor)
		if p.Admitted != w.PodSets[0].Count {
			bad = append(bad, fmt.Sprintf("flavor %s: the checker pins %d pods, Kueue admits %d", p.Flavor, p.Admitted, w.PodSets[0].Count))
		}
	}
	if !slices.Equal(ours, candidates) {
		bad = append(bad, fmt.Sprintf("Kueue may admit it to flavors %v, the checker pins it to %v", candidates, ours))
	}
	flavors := slices.Clone(ours)
	for _, f := range candidates {
		if !slices.Contains(flavors, f) {
			flavors = append(flavors, f)
		}
	}
	if base.KueueFlavor == "" || len(flavors) == 0 {
		return []handoff.Record{base}, bad, nil
	}
	var out []handoff.Record
	for _, f := range flavors {
		r := base
		r.Flavor, r.Pool, r.Admitted = f, k.pool(f), w.PodSets[0].Count
		if i := slices.Index(ours, f); i >= 0 {
			r.Checker = &u.Pinned[i]
		}
		psa := kueue.PodSetAssignment{Name: w.PodSets[0].Name, Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{}, Count: &r.Admitted}
		for _, ps := range workload.NewInfo(wl).TotalRequests {
			for res := range ps.Requests.Iter() {
				psa.Flavors[res] = kueue.ResourceFlavorReference(f)
			}
		}
		if fa := byFlavor[f]; fa != nil {
			if api := fa.ToAPI(klog.Background()); len(api) > 0 && api[0].TopologyAssignment != nil {
				psa = api[0]
				if err := k.ungate(&r, &psa); err != nil {
					return nil, nil, err
				}
			}
		}
		if err := k.pin(ctx, &r, w, &psa); err != nil {
			return nil, nil, err
		}
		out = append(out, r)
	}
	return out, bad, nil
}

// admitDeployment admits a Deployment's replicas one by one, as Kueue's
// scheduler admits its pods' workloads: each cycle takes a snapshot of the
// cache, the flavor assigner picks a flavor for the next replica, and the
// admitted Workload (its PodSetAssignments, SetQuotaReservation) is assumed
// in the cache (Scheduler.assumeWorkload: AddOrUpdateWorkload) before the
// next cycle. It stops at the first replica not admitted, and leaves the
// cache empty again.
func (k *Kueue) admitDeployment(ctx context.Context, cq string, base handoff.Record, w *Workload, u *check.Unit, opts admitOptions) ([]handoff.Record, []string, error) {
	log := klog.Background()
	clock := clocktesting.NewFakeClock(time.Unix(0, 0))
	type step struct {
		flavor string
		n      int32
		psa    kueue.PodSetAssignment
	}
	var steps []step
	var assumed []*kueue.Workload
	defer func() { k.forget(ctx, assumed) }()
	for i := int32(0); i < w.Pods; i++ {
		if opts.ignoreQuota && len(steps) > 0 {
			steps[0].n++
			continue
		}
		snap, err := k.cache.Snapshot(ctx)
		if err != nil {
			return nil, nil, err
		}
		k.snapshot = snap
		a, wl, err := k.assign(ctx, cq, base.Namespace, fmt.Sprintf("%s-%s-%d", w.Name, base.Tenant, i), w.PodSets)
		if err != nil {
			return nil, nil, err
		}
		if i == 0 {
			base.KueueFlavor = flavorOf(a)
		}
		if a.RepresentativeMode() != flavorassigner.Fit {
			break
		}
		admission := &kueue.Admission{ClusterQueue: kueue.ClusterQueueReference(cq), PodSetAssignments: a.ToAPI(log)}
		workload.SetQuotaReservation(wl, admission, clock)
		if !k.cache.AddOrUpdateWorkload(log, wl) {
			return nil, nil, fmt.Errorf("replica %d: Kueue's cache did not take the admitted Workload", i)
		}
		assumed = append(assumed, wl)
		f := flavorOf(a)
		if len(steps) > 0 && steps[len(steps)-1].flavor == f {
			steps[len(steps)-1].n++
			continue
		}
		steps = append(steps, step{f, 1, admission.PodSetAssignments[0]})
	}
	var bad []string
	if want := checkerFlavor(u); base.KueueFlavor != want {
		bad = append(bad, fmt.Sprintf("Kueue admits its first pod on an empty cluster to flavor %q, the checker to %q", base.KueueFlavor, want))
	}
	var ours, theirs []string
	for _, p := range u.Pinned {
		ours = append(ours, fmt.Sprintf("%s:%d", p.Flavor, p.Admitted))
	}
	for _, s := range steps {
		theirs = append(theirs, fmt.Sprintf("%s:%d", s.flavor, s.n))
	}
	if !slices.Equal(ours, theirs) {
		bad = append(bad, fmt.Sprintf("Kueue admits its %d replicas one by one to flavor:count %v, the checker %v", w.Pods, theirs, ours))
	}
	if len(steps) == 0 {
		return []handoff.Record{base}, bad, nil
	}
	var out []handoff.Record
	for i, s := range steps {
		r := base
		r.Flavor, r.Pool, r.Admitted = s.flavor, k.pool(s.flavor), s.n
		if i < len(u.Pinned) && u.Pinned[i].Flavor == s.flavor && u.Pinned[i].Admitted == s.n {
			r.Checker = &u.Pinned[i]
		}
		if err := k.pin(ctx, &r, w, &s.psa); err != nil {
			return nil, nil, err
		}
		out = append(out, r)
	}
	return out, bad, nil
}

// pin is the unit's pod template as Kueue starts its pods once admitted
// with psa: pkg/podset FromAssignment reads the assigned ResourceFlavors'
// nodeLabels (and tolerations), and Merge adds them to a copy of the
// template, as the Job integration's RunWithPodSetsInfo and the pod
// integration's prepare (pkg/controller/jobs/pod) do. A conflict is
// Merge's refusal: the pods are never started.
func (k *Kueue) pin(ctx context.Context, r *handoff.Record, w *Workload, psa *kueue.PodSetAssignment) error {
	info, err := podset.FromAssignment(ctx, k.client, psa, &w.PodSets[0])
	if err != nil {
		return err
	}
	tmpl := w.Template.DeepCopy()
	if err := podset.Merge(klog.Background(), &tmpl.ObjectMeta, &tmpl.Spec, info); err != nil {
		r.PinError = err.Error()
		return nil
	}
	r.Template = tmpl
	return nil
}

// flavorOf is the flavor Kueue admitted the workload to ("" if it did not
// fit): that of its GPUs, or of its CPU when it asks for none, as the
// checker's Assignment.Flavor names it; the flavors joined by "+" when
// its resources went to different ones.
func flavorOf(a *flavorassigner.Assignment) string {
	if a.RepresentativeMode() != flavorassigner.Fit {
		return ""
	}
	byRes := map[corev1.ResourceName]string{}
	for _, ps := range a.PodSets {
		for r, f := range ps.Flavors {
			byRes[r] = string(f.Name)
		}
	}
	distinct := slices.Compact(slices.Sorted(maps.Values(byRes)))
	if len(distinct) > 1 {
		return strings.Join(distinct, "+")
	}
	if len(distinct) == 0 {
		return ""
	}
	return distinct[0]
}

// checkerFlavor is where the checker says Kueue admits the unit's first
// workload, "" if nowhere.
func checkerFlavor(u *check.Unit) string {
	if len(u.Pinned) == 0 {
		return ""
	}
	return u.Flavor
}
