package e2e

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// Kueue v0.19.2's Workload label for its WorkloadPriorityClass.
const kueuePriorityLabel = "kueue.x-k8s.io/priority-class"

// holdGate keeps the scenario's pods off the nodes: Kueue admits by quota
// alone, and an unbound pod goes at once when Kueue suspends its Job (a
// bound one would wait for a kubelet).
const holdGate = "e2e.gpufleet.dev/hold"

// preemptionCase is one tenant's scenario: copies of class low hold its
// flavors, then copies of class high, at priority highPriority, arrive.
type preemptionCase struct {
	tenant, cq, ns          string
	low, high, highPriority string
	lowValue, highValue     int32
}

// pickPreemption chooses the fleet's scenario: two queued Job classes of
// one tenant, the higher one's flavor among those the lower one fills;
// else a queued Job class against a copy of itself at the next higher
// priority that may preempt (the fleet's WorkloadPriorityClasses).
func (fr *fleetRun) pickPreemption() *preemptionCase {
	prio := func(class string) (string, int32) {
		p := fr.res.Fleet.Class(class).Spec.Priority
		return p, fr.res.Fleet.Spec.Priorities[p].Value
	}
	queues := compiler.KueueIntent(fr.res.Fleet)
	var jobs [][]string // each queue's queued Job classes Kueue admits
	for _, q := range queues {
		var js []string
		for _, c := range q.Classes {
			// Not one Kueue places by topology: the scenario is about
			// quota, and TAS would also refuse copies for want of room
			// on the nodes that exist.
			if u := unitOf(fr.res.Report, q.Tenant, c); u != nil && u.Kind == keys.KindJob && u.Flavor != "" && u.Topology == nil {
				js = append(js, c)
			}
		}
		jobs = append(jobs, js)
	}
	for i, q := range queues {
		for _, lo := range jobs[i] {
			for _, hi := range jobs[i] {
				_, lv := prio(lo)
				hp, hv := prio(hi)
				if hv > lv && pinnedFor(unitOf(fr.res.Report, q.Tenant, lo), unitOf(fr.res.Report, q.Tenant, hi).Flavor) != nil {
					return &preemptionCase{q.Tenant, q.ClusterQueue, q.Namespace, lo, hi, hp, lv, hv}
				}
			}
		}
	}
	for i, q := range queues {
		if len(jobs[i]) == 0 {
			continue
		}
		c := jobs[i][0]
		_, lv := prio(c)
		best, bv := "", int32(0)
		for _, name := range spec.Keys(fr.res.Fleet.Spec.Priorities) {
			p := fr.res.Fleet.Spec.Priorities[name]
			if p.Value > lv && p.Preemption != "Never" && (best == "" || p.Value < bv) {
				best, bv = name, p.Value
			}
		}
		if best != "" {
			return &preemptionCase{q.Tenant, q.ClusterQueue, q.Namespace, c, c, best, lv, bv}
		}
	}
	return nil
}

// preemption runs the fleet's scenario: copies of the lower class fill
// the tenant's ClusterQueue until Kueue leaves one pending; then copies of
// the higher one arrive, one at a time, until Kueue admits one by
// preempting or leaves one pending. Where the ClusterQueue's
// withinClusterQueue is LowerPriority, Kueue must preempt a lower copy
// (reason InClusterQueue) rather than leave the higher one pending; where
// it is Never, it must preempt none.
func (fr *fleetRun) preemption(dyn dynamic.Interface) {
	pc := fr.pickPreemption()
	if pc == nil {
		fr.t.Logf("preemption: no tenant queues two priorities of a Job class")
		return
	}
	policy := "Never"
	if p := fr.model.Queues[pc.cq].Spec.Preemption; p != nil && p.WithinClusterQueue != "" {
		policy = p.WithinClusterQueue
	}
	allowed := policy == "LowerPriority"
	defer fr.clearJob(dyn, pc.ns, "")
	hold := func(prio string) func(*metav1.ObjectMeta, *corev1.PodTemplateSpec) {
		return func(m *metav1.ObjectMeta, t *corev1.PodTemplateSpec) {
			if prio != "" {
				if m.Labels == nil {
					m.Labels = map[string]string{}
				}
				m.Labels[kueuePriorityLabel] = prio
			}
			t.Spec.SchedulingGates = append(t.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: holdGate})
		}
	}
	name := func(class, role string, i int) string {
		return fmt.Sprintf("%s-%s-%d", strings.TrimSuffix(class[:min(len(class), 40)], "-"), role, i)
	}
	lows := map[types.UID]string{}
	filled := false
	for i := 0; i < 12 && !filled; i++ {
		s, err := fr.create(pc.ns, pc.low, name(pc.low, "low", i), hold(""))
		if err == nil {
			err = fr.await(dyn, s, nil)
		}
		if err != nil {
			fr.fail("preemption: tenant %s, class %s: %v", pc.tenant, pc.low, err)
			return
		}
		lows[s.uid] = s.name
		filled = !s.anyAdmitted()
	}
	if !filled {
		fr.fail("preemption: tenant %s: Kueue admitted 12 copies of class %s and left none pending", pc.tenant, pc.low)
		return
	}
	for i := 0; i < 12; i++ {
		s, err := fr.create(pc.ns, pc.high, name(pc.high, "high", i), hold(pc.highPriority))
		if err != nil {
			fr.fail("preemption: tenant %s, class %s: %v", pc.tenant, pc.high, err)
			return
		}
		d, preempted, err := fr.awaitPreemption(dyn, pc.ns, s.uid, lows)
		if err != nil {
			fr.fail("preemption: tenant %s, class %s: %v", pc.tenant, pc.high, err)
			return
		}
		what := fmt.Sprintf("ClusterQueue %s (withinClusterQueue %s): %d copies of class %s (priority %d) hold its quota; copy %d of class %s at priority %s (%d): Kueue %s, preempting %v",
			pc.cq, policy, len(lows)-1, pc.low, pc.lowValue, i+1, pc.high, pc.highPriority, pc.highValue, d, preempted)
		switch {
		case len(preempted) > 0 && !allowed:
			fr.fail("preemption: %s, which the ClusterQueue protects", what)
		case len(preempted) > 0:
			for w, why := range preempted {
				if why != "InClusterQueue" {
					fr.fail("preemption: %s: %s preempted for %s, not within the ClusterQueue", what, w, why)
				}
			}
			if !d.admitted {
				fr.fail("preemption: %s, and did not admit it", what)
			}
			fr.t.Logf("preemption: %s, as the ClusterQueue allows", what)
			fr.st.Preempted++
			return
		case d.admitted:
			continue // it fit beside the lower copies: another comes
		case allowed:
			fr.fail("preemption: %s; the ClusterQueue lets it preempt the lower copies", what)
			return
		default:
			fr.t.Logf("preemption: %s, as the ClusterQueue protects them", what)
			fr.st.Protected++
			return
		}
	}
	fr.fail("preemption: tenant %s: Kueue admitted 12 copies of class %s beside the lower ones", pc.tenant, pc.high)
}

// awaitPreemption waits until Kueue admits the Workload owned by uid, or
// leaves it pending for a reason other than a preemption under way, for a
// few seconds; it returns the decision and the Workloads of lows it
// preempted, with the Preempted condition's reason.
func (fr *fleetRun) awaitPreemption(dyn dynamic.Interface, ns string, uid types.UID, lows map[types.UID]string) (kueueDecision, map[string]string, error) {
	var d kueueDecision
	preempted := map[string]string{}
	var still time.Time
	err := poll(60*time.Second, 200*time.Millisecond, func() (bool, error) {
		list, err := dyn.Resource(workloads).Namespace(ns).List(fr.ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		decided := false
		for i := range list.Items {
			w := &list.Items[i]
			for _, o := range w.GetOwnerReferences() {
				switch {
				case o.UID == uid:
					d, decided = decisionOf(w)
				case lows[o.UID] != "":
					if why := condition(w, "Preempted"); why != "" {
						preempted[w.GetName()] = why
					}
				}
			}
		}
		switch {
		case !decided:
			return false, nil
		case d.admitted:
			return true, nil
		case strings.Contains(d.message, "Pending the preemption"):
			still = time.Time{}
			return false, nil
		case still.IsZero():
			still = time.Now()
		}
		return time.Since(still) > 3*time.Second, nil
	})
	if err != nil {
		return d, preempted, fmt.Errorf("Kueue neither admitted the higher copy nor left it pending: %w (last: %s)", err, d)
	}
	return d, preempted, nil
}

// condition is the reason of the Workload's condition of type t when it
// is True, else "".
func condition(w *unstructured.Unstructured, t string) string {
	conds, _, _ := unstructured.NestedSlice(w.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == t && m["status"] == "True" {
			reason, _ := m["reason"].(string)
			return reason
		}
	}
	return ""
}
