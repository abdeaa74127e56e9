//go:build composed

// The kube-scheduler half of the composed differential
// (scripts/composed.sh): the Kueue half (ladder/kueue/composed_test.go)
// admitted every queued unit with Kueue v0.19.2 and pinned its pod
// template to each flavor; this half makes the pods kube-apiserver would
// (its LimitRanger admission in the tenant's namespace) and places them
// with kube-scheduler v1.35.4's scheduling cycle on the fleet at max size,
// and holds the checker's Pinned entries to what lands.
package kubesched

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	"k8s.io/kubernetes/pkg/apis/core"
	corev1conv "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/plugin/pkg/admission/limitranger"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/handoff"
)

var composedIn = flag.String("composed-in", "", "TestComposedPlace reads the Kueue half's records here (JSON)")

func recordString(r *handoff.Record) string {
	s := fmt.Sprintf("%s: tenant %s, class %s (%s", r.Fleet, r.Tenant, r.Class, unitKind(r))
	if r.Role != "" {
		s += ", pod set " + r.Role
	}
	if r.Seed > 0 {
		s += fmt.Sprintf(", seed %d", r.Seed)
	}
	return s + fmt.Sprintf("), flavor %s, %d admitted", r.Flavor, r.Admitted)
}

// rowOf is the checker's row of the record's pods: an ML kind's role's,
// or the class's own.
func rowOf(r *handoff.Record) string {
	if r.Row != "" {
		return r.Row
	}
	return r.Class
}

func unitKind(r *handoff.Record) string {
	if r.Kind == keys.KindJob {
		if r.Gang {
			return "Job gang"
		}
		return "Job waves"
	}
	return r.Kind
}

var unitKinds = []string{"Job gang", "Job waves", keys.KindStatefulSet, keys.KindDeployment}

func readComposed(t *testing.T) []handoff.Record {
	t.Helper()
	if *composedIn == "" {
		t.Fatal("-composed-in=FILE is required: the Kueue half's records (scripts/composed.sh runs both halves)")
	}
	raw, err := os.ReadFile(*composedIn)
	if err != nil {
		t.Fatal(err)
	}
	var recs []handoff.Record
	if err := json.Unmarshal(raw, &recs); err != nil {
		t.Fatalf("%s: %v", *composedIn, err)
	}
	if len(recs) == 0 {
		t.Fatalf("%s: no records", *composedIn)
	}
	return recs
}

// composedFleet is one fleet of the handoff compiled again: the
// checker's cluster, the emitted scheduler profiles and each namespace's
// LimitRanges.
type composedFleet struct {
	t        testing.TB
	res      *compiler.Result
	cl       *sched.Cluster
	profiles map[string]*config.KubeSchedulerProfile
	limits   map[string][]v1.LimitRange
	// quotas are each namespace's ResourceQuotas; dra and ext the DRA
	// inputs and the quota evaluator's extended-resource cache, once
	// the quota stage needs them.
	quotas map[string][]v1.ResourceQuota
	dra    *DRA
	ext    *extendedresourcecache.ExtendedResourceCache
}

// eachFleet compiles the fleet of each run of records with the same spec
// and calls f with it and the run, until f returns false.
func eachFleet(t *testing.T, recs []handoff.Record, f func(*composedFleet, []handoff.Record) bool) {
	t.Helper()
	for len(recs) > 0 {
		n := 1
		for n < len(recs) && recs[n].Spec == recs[0].Spec {
			n++
		}
		res, cl := fleetCase{recs[0].Fleet, recs[0].Spec}.compile(t)
		fl := &composedFleet{t: t, res: res, cl: cl, profiles: emittedProfiles(t, recs[0].Fleet, res), limits: map[string][]v1.LimitRange{},
			quotas: map[string][]v1.ResourceQuota{}}
		for _, p := range res.Tree.Paths() {
			if path.Base(p) == tree.ResourceQuotasFile {
				for _, doc := range tree.Docs(res.Tree[p]) {
					var q v1.ResourceQuota
					if err := yaml.UnmarshalStrict(doc, &q); err != nil {
						t.Fatalf("%s: %s: %v", recs[0].Fleet, p, err)
					}
					fl.quotas[q.Namespace] = append(fl.quotas[q.Namespace], q)
				}
			}
			if path.Base(p) != tree.LimitRangesFile {
				continue
			}
			for _, doc := range tree.Docs(res.Tree[p]) {
				var lr v1.LimitRange
				if err := yaml.UnmarshalStrict(doc, &lr); err != nil {
					t.Fatalf("%s: %s: %v", recs[0].Fleet, p, err)
				}
				fl.limits[lr.Namespace] = append(fl.limits[lr.Namespace], lr)
			}
		}
		if !f(fl, recs[:n]) {
			return
		}
		recs = recs[n:]
	}
}

// placed is what the scheduling cycle made of one record's pods.
type placed struct {
	bound   int64
	message string
	hosts   []string
	// refused says the pods were never created: Kueue's Merge refused
	// the flavor, or LimitRanger the pod.
	refused string
}

// place makes the record's Admitted pods from its pinned template as
// kube-apiserver creates them in the tenant's namespace (defaulted, then
// LimitRanger's admission: each LimitRange's defaults filled in, its
// limits enforced), and schedules them one after another with the real
// scheduling cycle under the profile their schedulerName names (a
// scheduler of the user's own as default-scheduler, as the checker
// judges it), on every pool at max size, ties broken by run.
func (fl *composedFleet) place(r *handoff.Record, tmpl *v1.PodTemplateSpec, run int) (*placed, []string, error) {
	if r.PinError != "" {
		return &placed{refused: "Kueue: " + r.PinError}, nil, nil
	}
	c := fl.cl.Class(rowOf(r))
	if c == nil {
		return nil, nil, fmt.Errorf("class %s not in the checker's cluster", rowOf(r))
	}
	cells := make([]sched.Cell, len(fl.cl.Pools))
	for j, p := range fl.cl.Pools {
		cells[j] = *fl.res.Report.Cell(c.Name, p.Name)
	}
	nodes, _ := atMaxSize(fl.cl, cells)
	devices := devicesAtMaxSize(fl.cl, cells)
	if len(r.Ungated) > 0 {
		nodes, devices = fl.tasNodes(r, nodes, devices)
	}
	pods := make([]*v1.Pod, r.Admitted)
	for i := range pods {
		p := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", strings.ReplaceAll(rowOf(r), "/", "-"), i), Namespace: r.Namespace,
				Labels: maps.Clone(tmpl.Labels), Annotations: maps.Clone(tmpl.Annotations)},
			Spec: *tmpl.Spec.DeepCopy(),
		}
		if len(r.Ungated) > 0 {
			ungate(p, r.Ungated[i])
		}
		p, err := limitRanged(p, fl.limits[r.Namespace])
		if err != nil {
			return &placed{refused: "LimitRanger: " + err.Error()}, nil, nil
		}
		pods[i] = p
	}
	var got *Placement
	var err error
	// A pod asking nvidia.com/gpu where the driver chart's DeviceClass
	// names it is the DRA manager's too (the extended-resource bridge).
	if len(tmpl.Spec.ResourceClaims) > 0 || c.Info.Bridge.Asks() {
		dra := draInputs(fl.t, fl.res, fl.cl)
		dra.Slices = slicesOf(devices)
		got, err = ScheduleDRA(fl.profiles[tmpl.Spec.SchedulerName], pods, nodes, dra, tieBreak(run))
	} else {
		got, err = Schedule(fl.profiles[tmpl.Spec.SchedulerName], pods, nodes, tieBreak(run))
	}
	if err != nil {
		return nil, nil, err
	}
	poolOf := map[string]string{}
	for _, n := range nodes {
		poolOf[n.Name] = n.Labels[keys.LabelPool]
	}
	out := &placed{bound: int64(len(got.Bound)), message: got.Message, hosts: hosts(got)}
	var outside []string
	for _, b := range got.Bound {
		if p := poolOf[b.Spec.NodeName]; p != r.Pool {
			outside = append(outside, fmt.Sprintf("%s on %s (pool %s)", b.Name, b.Spec.NodeName, p))
		}
	}
	return out, outside, nil
}

// limitRanged is the pod as kube-apiserver admits it in its namespace:
// defaulted, then the LimitRanger admission plugin's mutation and
// validation (plugin/pkg/admission/limitranger), on the internal type it
// works on.
func limitRanged(p *v1.Pod, limits []v1.LimitRange) (*v1.Pod, error) {
	p = defaultPod(p)
	if len(limits) == 0 {
		return p, nil
	}
	var in core.Pod
	if err := corev1conv.Convert_v1_Pod_To_core_Pod(p, &in, nil); err != nil {
		return nil, err
	}
	for i := range limits {
		if err := limitranger.PodMutateLimitFunc(&limits[i], &in); err != nil {
			return nil, err
		}
	}
	for i := range limits {
		if err := limitranger.PodValidateLimitFunc(&limits[i], &in); err != nil {
			return nil, err
		}
	}
	out := &v1.Pod{}
	if err := corev1conv.Convert_core_Pod_To_v1_Pod(&in, out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// judge places the record's pods under both tie-breaks and lists where
// the checker's Pinned entry and the cycle differ: how many pods land,
// and that every one lands in the flavor's pool.
func (fl *composedFleet) judge(r *handoff.Record, tmpl *v1.PodTemplateSpec) (*placed, bool, []string, error) {
	var bad []string
	if r.Checker == nil {
		bad = append(bad, "the checker has no Pinned entry for this flavor and count")
	}
	var first *placed
	moved := false
	for run := 0; run < *tieBreaks; run++ {
		got, outside, err := fl.place(r, tmpl, run)
		if err != nil {
			return nil, false, nil, err
		}
		if run == 0 {
			first = got
		} else if !slices.Equal(first.hosts, got.hosts) {
			moved = true
		}
		if len(outside) > 0 {
			bad = append(bad, fmt.Sprintf("tie-break %d: %d pods outside the flavor's pool %s: %s", run, len(outside), r.Pool, strings.Join(outside[:min(3, len(outside))], ", ")))
		}
		if r.Checker != nil && got.bound != r.Checker.Placed {
			why := got.message
			if got.refused != "" {
				why = got.refused
			}
			bad = append(bad, fmt.Sprintf("tie-break %d: kube-scheduler places %d, the checker says %d (checker's reasons %q; kube-scheduler: %s)",
				run, got.bound, r.Checker.Placed, r.Checker.Reasons, why))
		}
		if got.refused != "" {
			break // no pods to place: the tie-break cannot matter
		}
	}
	return first, moved, bad, nil
}

// composedStats count what the composed differential placed, from the
// first tie-break's runs.
type composedStats struct {
	fleets, pinned, agreed, tieBreakMoved int
	units, admitted, pinnedBy             map[string]int
	// refused counts pinned units of which kube-scheduler places fewer
	// pods than Kueue admitted, by what it says of the next pod; strands
	// those of them where fewer run than the unit needs (all of a gang, a
	// StatefulSet or a Deployment's replicas, one pod of a Job in waves).
	refused, strands map[string]int
	pinErrors        int
	// constrained counts pinned units with a hard spread or required
	// anti-affinity, and constrainedBy by kind.
	constrained   int
	constrainedBy map[string]int
	// tas counts pinned units Kueue placed by topology (its ungater's
	// pins applied), tasShort those of which fewer land than it admitted.
	tas, tasShort int
}

func (s *composedStats) String() string {
	var units, pinned []string
	kinds := slices.Clone(unitKinds)
	for _, k := range slices.Sorted(maps.Keys(s.units)) {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k) // the ML kinds: a pinned unit is one role
		}
	}
	for _, k := range kinds {
		units = append(units, fmt.Sprintf("%s %d (%d admitted)", k, s.units[k], s.admitted[k]))
		pinned = append(pinned, fmt.Sprintf("%s %d (%d with a hard spread or anti-affinity)", k, s.pinnedBy[k], s.constrainedBy[k]))
	}
	return fmt.Sprintf("%d fleets; queued units by kind: %s; pinned units (unit × flavor) %d: %s; "+
		"fewer placed than admitted: %d (spread or anti-affinity %d, resources %d), strands %d (spread or anti-affinity %d); Merge refused %d; "+
		"placed by topology %d (fewer than admitted %d); the other tie-break moved pods in %d; agreement %d of %d",
		s.fleets, strings.Join(units, ", "), s.pinned, strings.Join(pinned, ", "),
		s.refused["any"], s.refused["spread or anti-affinity"], s.refused["resources"], s.strands["any"], s.strands["spread or anti-affinity"],
		s.pinErrors, s.tas, s.tasShort, s.tieBreakMoved, s.agreed, s.pinned)
}

// constrained says the template has a hard topology spread or a required
// pod anti-affinity.
func constrained(t *v1.PodTemplateSpec) bool {
	if t == nil {
		return false
	}
	for _, c := range t.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == v1.DoNotSchedule {
			return true
		}
	}
	a := t.Spec.Affinity
	return a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0
}

func (s *composedStats) count(r *handoff.Record, got *placed) {
	k := unitKind(r)
	s.pinned++
	s.pinnedBy[k]++
	if constrained(r.Template) {
		s.constrained++
		s.constrainedBy[k]++
	}
	if got.refused != "" {
		s.pinErrors++
		return
	}
	if len(r.Ungated) > 0 {
		s.tas++
		if got.bound < int64(r.Admitted) {
			s.tasShort++
		}
	}
	if got.bound >= int64(r.Admitted) {
		return
	}
	why := []string{"any"}
	switch {
	case strings.Contains(got.message, "topology spread") || strings.Contains(got.message, "anti-affinity"):
		why = append(why, "spread or anti-affinity")
	case strings.Contains(got.message, "Insufficient") || strings.Contains(got.message, "Too many pods"):
		why = append(why, "resources")
	}
	need := int64(r.Admitted)
	if r.Kind == keys.KindJob && !r.Gang {
		need = 1
	}
	for _, w := range why {
		s.refused[w]++
		if got.bound < need {
			s.strands[w]++
		}
	}
}

// TestComposedPlace is the kube-scheduler half of the composed
// differential: for every unit Kueue admitted to a flavor, as many pods
// as Kueue admitted there, made from the template Kueue pinned to the
// flavor, scheduled by the real scheduling cycle on the fleet at max size
// under both tie-breaks. As many must land as the checker's Pinned entry
// says, every one in the flavor's pool. Agreement must be total, and the
// fleets must exercise StatefulSets and Deployments (a tenth of the
// queued units at least) and pinned units that spreads or anti-affinity
// refuse inside their pool (a twentieth).
func TestComposedPlace(t *testing.T) {
	start := time.Now()
	recs := readComposed(t)
	st := &composedStats{units: map[string]int{}, admitted: map[string]int{}, pinnedBy: map[string]int{}, constrainedBy: map[string]int{}, refused: map[string]int{}, strands: map[string]int{}}
	var bad []string
	table := fleetgen.PairTable{}
	eachFleet(t, recs, func(fl *composedFleet, recs []handoff.Record) bool {
		st.fleets++
		seen := map[[2]string]bool{}
		for i := range recs {
			r := &recs[i]
			if u := [2]string{r.Tenant, r.Class}; !seen[u] {
				seen[u] = true
				st.units[unitKind(r)]++
				if r.Flavor != "" {
					st.admitted[unitKind(r)]++
				}
			}
			if r.Flavor == "" {
				continue
			}
			if r.Pool == "" {
				t.Fatalf("%s: flavor %s has no %s nodeLabel: its pods are pinned to no pool", recordString(r), r.Flavor, keys.LabelPool)
			}
			got, moved, b, err := fl.judge(r, r.Template)
			if err != nil {
				t.Fatalf("%s: %v", recordString(r), err)
			}
			st.count(r, got)
			reached(table, fl, r, got)
			if got != nil && got.refused == "" && got.bound > 0 {
				reachedUnits = append(reachedUnits, fleetgen.Features(fl.res.Fleet.Spec, r.Tenant, r.Class, r.Pool))
			}
			if moved {
				st.tieBreakMoved++
			}
			if len(b) == 0 {
				st.agreed++
			}
			for _, d := range b {
				bad = append(bad, fmt.Sprintf("%s: %s", recordString(r), d))
			}
		}
		return true
	})
	t.Logf("%s; %d disagreements; %s", st, len(bad), time.Since(start).Round(time.Second))
	figures = append(figures, fmt.Sprintf("%-10s %s; %d disagreements", "composed", st, len(bad)))
	var queued, sets int
	for k, n := range st.units {
		queued += n
		if k == keys.KindStatefulSet || k == keys.KindDeployment {
			sets += n
		}
	}
	if sets*10 < queued {
		t.Errorf("%d of %d queued units are StatefulSets or Deployments, under a tenth: the generator (fleetgen Options.Composed) no longer exercises Kueue's pod groups and pods", sets, queued)
	}
	if n := st.refused["spread or anti-affinity"]; n*20 < st.pinned {
		t.Errorf("%d of %d pinned units refused by a spread or anti-affinity inside their pool, under a twentieth: raise fleetgen composed's chances of hard spreads and anti-affinity on queued workloads", n, st.pinned)
	}
	if st.pinned == 0 {
		t.Fatal("no pinned units")
	}
	gaps := pairGaps(table)
	t.Logf("pairs of features (units placed by kube-scheduler; - impossible): %d possible, %d empty\n%s", len(fleetgen.Pairs()), len(gaps), table)
	figures = append(figures, fmt.Sprintf("%-10s pairs of features reached: %d of %d possible", "composed", len(fleetgen.Pairs())-len(gaps), len(fleetgen.Pairs())))
	for _, g := range gaps {
		t.Error(g)
	}
	if len(bad) > 0 {
		slices.SortFunc(bad, func(a, b string) int { return len(a) - len(b) })
		t.Fatalf("%d disagreements; the shortest:\n%s", len(bad), strings.Join(bad[:min(10, len(bad))], "\n"))
	}
}

// TestComposedPlaceCatchesUnpinned proves the placement half can fail: a
// Kueue that admitted units without pinning them (no flavor nodeLabels
// merged into the template) lets kube-scheduler place their pods in any
// pool, and the half must disagree. The separate kube-scheduler
// differential places classes unpinned and would not notice.
func TestComposedPlaceCatchesUnpinned(t *testing.T) {
	recs := readComposed(t)
	var caught, tried int
	var examples []string
	fleets := 0
	eachFleet(t, recs, func(fl *composedFleet, recs []handoff.Record) bool {
		fleets++
		for i := range recs {
			r := &recs[i]
			if r.Template == nil || r.Checker == nil || caught >= 5 {
				continue
			}
			// A unit pinned where the class lands on other pools too.
			fits := 0
			for _, p := range fl.cl.Pools {
				if c := fl.res.Report.Cell(rowOf(r), p.Name); c != nil && c.Fits {
					fits++
				}
			}
			if fits < 2 {
				continue
			}
			tried++
			if _, _, b, err := fl.judge(r, r.Template); err != nil || len(b) > 0 {
				t.Fatalf("%s disagrees unmutated: %v %v", recordString(r), err, b)
			}
			unpinned := r.Template.DeepCopy()
			unpinned.Spec.NodeSelector = r.WrittenNodeSelector
			_, _, b, err := fl.judge(r, unpinned)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > 0 {
				caught++
				examples = append(examples, fmt.Sprintf("%s: %s", recordString(r), b[0]))
			}
		}
		return caught < 5 && fleets < 20
	})
	if caught == 0 {
		t.Fatalf("unpinned pods went unnoticed in %d pinned units", tried)
	}
	t.Logf("unpinned: caught in %d of %d units tried:\n%s", caught, tried, strings.Join(examples, "\n"))
}
