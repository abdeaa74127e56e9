//go:build composed

package kubesched

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	quota "k8s.io/apiserver/pkg/quota/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/quota/v1/evaluator/core"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/queueing"
	"github.com/gpufleet/gpufleet/compiler/check/resourcequota"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/internal/handoff"
)

// The composed rung's quota stage (issue 46, item 4): the API server's
// quota admission, with Kubernetes' own evaluators
// (k8s.io/kubernetes v1.36.5 pkg/quota/v1/evaluator/core: the pod
// evaluator, which charges every pod that is not terminal, a gated one
// included, and the ResourceClaim evaluator, which charges each claim's
// devices against <deviceclass>.deviceclass.resource.k8s.io/devices), on
// the tenants' ResourceQuotas as the tree writes them. For every class of
// every tenant, the pods that must run at once (a gang, every replica, one
// pod of a Job in waves), made as kube-apiserver admits them in each of
// the tenant's namespaces (LimitRanger's defaults; a queued Deployment's
// or StatefulSet's pods still held by Kueue's admission gate), and their
// claims (the resourceclaim controller's, from the tree's templates, or
// the one kube-scheduler makes for a bridged pod), are charged to every
// quota whose scopes match them. The quota refuses the unit where any
// namespace's usage passes a hard limit; QuotaFit must say so exactly there.

// admissionGate is the scheduling gate Kueue's pod integration puts on a
// queued pod until its workload is admitted (kueue.x-k8s.io/admission).
const admissionGate = "kueue.x-k8s.io/admission"

// quotaOptions break the quota stage on purpose (quotaMutants).
type quotaOptions struct {
	// noClaims charges no ResourceClaim, as QuotaFit once did;
	// skipGated charges no pod that is still gated, as if quota were
	// taken only once Kueue admits the workload.
	noClaims, skipGated bool
}

// quotaVerdict is quota admission's on one class of a tenant: "" where
// every namespace's quotas hold its unit, else the first refusal.
func (fl *composedFleet) quotaVerdict(t *testing.T, ten spec.Tenant, c *sched.Class, opts quotaOptions) (refused string, gated int) {
	return fl.quotaVerdictOf(t, ten, []charged{{c, max(int(c.Need()), 1)}}, opts)
}

// charged is n pods of a class, charged together with others.
type charged struct {
	c *sched.Class
	n int
}

// quotaVerdictOf is quota admission's on the pods of every entry of
// units together, in each of the tenant's namespaces.
func (fl *composedFleet) quotaVerdictOf(t *testing.T, ten spec.Tenant, units []charged, opts quotaOptions) (refused string, gated int) {
	if fl.dra == nil {
		d := draInputs(t, fl.res, fl.cl)
		fl.dra = &d
		fl.ext = extendedresourcecache.NewExtendedResourceCache(klog.Background())
		for _, dc := range d.Classes {
			fl.ext.OnAdd(dc, true)
		}
	}
	dra, ext := fl.dra, fl.ext
	podEval := core.NewPodEvaluator(nil, clocktesting.NewFakeClock(time.Unix(0, 0)))
	for _, ns := range ten.Namespaces {
		quotas := fl.quotas[ns]
		if len(quotas) == 0 {
			continue
		}
		var pods []*v1.Pod
		var claims []*resourcev1.ResourceClaim
		podIndex := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
		owned := map[types.UID][]*resourcev1.ResourceClaim{}
		for _, u := range units {
			c := u.c
			written := c.Written
			if written == nil {
				written = c.Pod
			}
			for i := range u.n {
				p := written.DeepCopy()
				p.Namespace, p.Name, p.UID = ns, fmt.Sprintf("%s-%d", c.Name, i), types.UID(fmt.Sprintf("%s-%s-%d", ns, c.Name, i))
				p, err := limitRanged(p, fl.limits[ns])
				if err != nil {
					return "LimitRanger: " + err.Error(), 0
				}
				if c.Queued && c.Kind != keys.KindJob {
					p.Spec.SchedulingGates = append(p.Spec.SchedulingGates, v1.PodSchedulingGate{Name: admissionGate})
					gated++
				}
				pods = append(pods, p)
				if err := podIndex.Add(p); err != nil {
					t.Fatal(err)
				}
				var mine []*resourcev1.ResourceClaim
				switch model := claimsOf(c); {
				case opts.noClaims:
				case c.Info.Claims.Asks():
					mine, err = makeClaims(p, dra.Templates)
					if err != nil {
						t.Fatalf("class %s: %v", c.Name, err)
					}
				case model.Asks():
					mine = []*resourcev1.ResourceClaim{bridgeClaim(p, model)}
				}
				owned[p.UID] = mine
				claims = append(claims, mine...)
			}
		}
		byOwner := func(_ string, uid types.UID) ([]*resourcev1.ResourceClaim, error) { return owned[uid], nil }
		claimEval := core.NewResourceClaimEvaluator(nil, ext, corev1listers.NewPodLister(podIndex), byOwner)
		for qi := range quotas {
			// The quota controller copies spec.hard into status.hard, which
			// is what the evaluators match and admission enforces.
			q := quotas[qi].DeepCopy()
			q.Status.Hard = q.Spec.Hard
			var charged []runtime.Object
			for _, p := range pods {
				if !opts.skipGated || len(p.Spec.SchedulingGates) == 0 {
					charged = append(charged, p)
				}
			}
			used := quota.Add(charge(t, podEval, q, charged), charge(t, claimEval, q, claimObjects(claims)))
			if ok, over := quota.LessThanOrEqual(quota.Mask(used, quota.ResourceNames(q.Status.Hard)), q.Status.Hard); !ok {
				slices.Sort(over)
				return fmt.Sprintf("namespace %s, ResourceQuota %s: exceeded quota: %v", ns, q.Name, over), gated
			}
		}
	}
	return "", gated
}

// charge is what the evaluator charges the quota for the objects whose
// scopes it matches.
func charge(t *testing.T, eval quota.Evaluator, q *v1.ResourceQuota, objs []runtime.Object) v1.ResourceList {
	used := v1.ResourceList{}
	for _, o := range objs {
		ok, err := eval.Matches(q, o)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		u, err := eval.Usage(o)
		if err != nil {
			t.Fatal(err)
		}
		used = quota.Add(used, u)
	}
	return used
}

func claimObjects(claims []*resourcev1.ResourceClaim) []runtime.Object {
	out := make([]runtime.Object, len(claims))
	for i, c := range claims {
		out[i] = c
	}
	return out
}

// quotaStats count what the quota stage judged; caught counts the
// disagreements of each deliberately broken quota admission.
type quotaStats struct {
	units, refused, agreed, gated, claimed int
	// preemptions count the admitted units that Kueue may admit by
	// preempting a queued Deployment or StatefulSet, gatedRefused those
	// whose pods quota admission refuses beside the victim's gated pods.
	preemptions, gatedRefused int
	caught                    map[string][]string
}

// quotaMutants are the deliberately broken quota admissions the stage
// must catch.
var quotaMutants = []struct {
	name string
	opts quotaOptions
}{{"claims charged nothing", quotaOptions{noClaims: true}}, {"gated pods charged nothing", quotaOptions{skipGated: true}}}

// flagged are the (tenant, class) pairs the check has a finding for.
func (fl *composedFleet) flagged(id check.ID) map[[2]string]bool {
	out := map[[2]string]bool{}
	for _, f := range fl.res.Report.Findings {
		if f.Check == id {
			out[[2]string{f.Tenant, f.Class}] = true
		}
	}
	return out
}

// judgeQuota holds QuotaFit to quota admission on every class of every
// tenant of the fleet, and to each of quotaMutants.
func (fl *composedFleet) judgeQuota(t *testing.T, st *quotaStats) []string {
	var bad []string
	findings := fl.flagged(resourcequota.IDQuotaFit)
	fleet := fl.res.Fleet.Spec
	for _, tn := range spec.Keys(fleet.Tenants) {
		ten := fleet.Tenants[tn]
		for _, name := range ten.Classes {
			c := fl.cl.Class(name)
			if c == nil {
				continue
			}
			st.units++
			ours := findings[[2]string{tn, name}]
			refused, gated := fl.quotaVerdict(t, ten, c, quotaOptions{})
			if gated > 0 {
				st.gated++
			}
			if claimsOf(c).Asks() {
				st.claimed++
			}
			if refused != "" {
				st.refused++
			}
			for _, m := range quotaMutants {
				if r, _ := fl.quotaVerdict(t, ten, c, m.opts); ours != (r != "") {
					st.caught[m.name] = append(st.caught[m.name], fmt.Sprintf("tenant %s, class %s", tn, name))
				}
			}
			if ours == (refused != "") {
				st.agreed++
				continue
			}
			if ours {
				bad = append(bad, fmt.Sprintf("tenant %s, class %s: QuotaFit refuses it, quota admission takes its %d pods", tn, name, max(c.Need(), 1)))
			} else {
				bad = append(bad, fmt.Sprintf("tenant %s, class %s: quota admission refuses its %d pods (%s), QuotaFit says nothing", tn, name, max(c.Need(), 1), refused))
			}
		}
	}
	return append(bad, fl.judgeGated(t, st)...)
}

// judgeGated holds KueueGatedQuota to quota admission: for every admitted
// unit Kueue may admit by preempting a queued Deployment or StatefulSet of
// its ClusterQueue (the report's preempts), the victim's replicas, gated
// as the controller recreates them, and the unit's pods, charged
// together, are refused where each alone is not.
func (fl *composedFleet) judgeGated(t *testing.T, st *quotaStats) []string {
	var bad []string
	ours := fl.flagged(queueing.IDKueueGatedQuota)
	fleet := fl.res.Fleet.Spec
	for _, u := range fl.res.Report.Units {
		p := fl.cl.Class(u.Class)
		if u.Tenant == "" || u.Flavor == "" || p == nil {
			continue
		}
		ten, need := fleet.Tenants[u.Tenant], max(int(p.Need()), 1)
		victims := 0
		theirs := map[quotaOptions]string{}
		for _, name := range u.Preempts {
			v := fl.cl.Class(name)
			if v == nil || !v.Queued || v.Kind == keys.KindJob {
				continue
			}
			victims++
			for _, opts := range []quotaOptions{{}, {skipGated: true}} {
				if theirs[opts] != "" {
					continue
				}
				both, _ := fl.quotaVerdictOf(t, ten, []charged{{v, int(v.Pods)}, {p, need}}, opts)
				alone, _ := fl.quotaVerdictOf(t, ten, []charged{{v, int(v.Pods)}}, opts)
				mine, _ := fl.quotaVerdictOf(t, ten, []charged{{p, need}}, opts)
				if both != "" && alone == "" && mine == "" {
					theirs[opts] = name + ": " + both
				}
			}
		}
		if victims == 0 {
			continue
		}
		st.preemptions++
		flagged := ours[[2]string{u.Tenant, u.Class}]
		if theirs[quotaOptions{}] != "" {
			st.gatedRefused++
		}
		if flagged != (theirs[quotaOptions{skipGated: true}] != "") {
			st.caught["gated pods charged nothing"] = append(st.caught["gated pods charged nothing"], fmt.Sprintf("tenant %s, class %s (preempting)", u.Tenant, u.Class))
		}
		switch {
		case flagged && theirs[quotaOptions{}] == "":
			bad = append(bad, fmt.Sprintf("tenant %s, class %s: KueueGatedQuota refuses it beside a preempted workload's gated pods, quota admission takes them", u.Tenant, u.Class))
		case !flagged && theirs[quotaOptions{}] != "":
			bad = append(bad, fmt.Sprintf("tenant %s, class %s: quota admission refuses its pods beside the gated pods of %s, KueueGatedQuota says nothing", u.Tenant, u.Class, theirs[quotaOptions{}]))
		}
	}
	return bad
}

// TestComposedPlaceQuota is the quota stage over every fleet of the
// handoff: QuotaFit must agree with quota admission on every unit, and
// disagree with each deliberately broken one (quotaMutants: claims or
// gated pods charged nothing) somewhere.
func TestComposedPlaceQuota(t *testing.T) {
	start := time.Now()
	st := &quotaStats{caught: map[string][]string{}}
	var bad []string
	eachFleet(t, readComposed(t), func(fl *composedFleet, recs []handoff.Record) bool {
		for _, b := range fl.judgeQuota(t, st) {
			bad = append(bad, recs[0].Fleet+": "+b)
		}
		return true
	})
	summary := fmt.Sprintf("quota admission (pod and ResourceClaim evaluators): %d units (%d with gated pods, %d with claims), %d refused; QuotaFit agrees on %d of %d; "+
		"%d admitted units that may preempt a queued Deployment or StatefulSet, %d refused beside its gated pods (KueueGatedQuota)",
		st.units, st.gated, st.claimed, st.refused, st.agreed, st.units, st.preemptions, st.gatedRefused)
	for _, m := range quotaMutants {
		summary += fmt.Sprintf("; %s caught on %d", m.name, len(st.caught[m.name]))
	}
	t.Logf("%s; %s", summary, time.Since(start).Round(time.Second))
	figures = append(figures, fmt.Sprintf("%-10s %s", "composed", summary))
	if st.refused == 0 || st.gated == 0 || st.claimed == 0 || st.gatedRefused == 0 {
		t.Errorf("the fleets no longer exercise quota admission: %s", summary)
	}
	for _, m := range quotaMutants {
		if len(st.caught[m.name]) == 0 {
			t.Errorf("a quota admission with %s went unnoticed", m.name)
		} else {
			t.Logf("%s: caught on %s, ...", m.name, st.caught[m.name][0])
		}
	}
	if len(bad) > 0 {
		t.Fatalf("%d disagreements:\n%s", len(bad), strings.Join(bad[:min(10, len(bad))], "\n"))
	}
}
