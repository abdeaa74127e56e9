package e2e

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/resourcequota"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// unitOf is the report's unit for the tenant's queued class, or the
// class's own where it is not queued (tenant "").
func unitOf(r *check.Report, tenant, class string) *check.Unit {
	for i := range r.Units {
		if u := &r.Units[i]; u.Class == class && u.Tenant == tenant {
			return u
		}
	}
	return nil
}

func pinnedFor(u *check.Unit, flavor string) *check.Pinned {
	for i := range u.Pinned {
		if u.Pinned[i].Flavor == flavor {
			return &u.Pinned[i]
		}
	}
	return nil
}

func (s *submission) String() string {
	admitted, pending := s.admittedTo()
	if len(s.decisions) == 1 {
		for _, d := range s.decisions {
			return d.String()
		}
	}
	var parts []string
	for _, f := range slices.Sorted(maps.Keys(admitted)) {
		parts = append(parts, fmt.Sprintf("%d to %s", admitted[f], f))
	}
	if pending > 0 {
		parts = append(parts, fmt.Sprintf("%d pending", pending))
	}
	return fmt.Sprintf("admitted the %d Workloads of %d pods: %s", len(s.decisions), s.pods, strings.Join(parts, ", "))
}

// fills is how a Deployment's replicas, admitted one by one, fill the
// flavors otherwise than the checker's unit says (each flavor's Admitted
// in Pinned, the rest pending): "" where they agree, or for another kind.
func fills(s *submission, u *check.Unit) string {
	if s.kind != keys.KindDeployment {
		return ""
	}
	got, pending := s.admittedTo()
	want, left := map[string]int{}, s.pods
	for _, p := range u.Pinned {
		want[p.Flavor] = int(p.Admitted)
		left -= int(p.Admitted)
	}
	if maps.Equal(got, want) && pending == left {
		return ""
	}
	return fmt.Sprintf("the checker admits %v and leaves %d pending, Kueue admitted %v and left %d pending", want, left, got, pending)
}

// flavorPool is the pool a flavor's nodeLabels pin pods to.
func (fr *fleetRun) flavorPool(f string) string {
	if p := fr.model.Flavors[f].NodeLabels[keys.LabelPool]; p != "" {
		return p
	}
	return f
}

// count adds a decided submission to the run's stats.
func (fr *fleetRun) count(s *submission) {
	fr.st.Queued[s.kind]++
	fr.st.Workloads += len(s.decisions)
	if s.anyAdmitted() {
		fr.st.Admitted[s.kind]++
	}
}

// queuedPods settles the pods of a workload Kueue admitted and holds them
// to the checker's unit (judgeUnit); a StatefulSet's must be the pod group
// of its one Workload.
func (fr *fleetRun) queuedPods(tenant, class string, s *submission, u *check.Unit) {
	if name := fr.noScheduler(class); name != "" {
		fr.st.NoScheduler++
		fr.t.Logf("tenant %s, class %s: Kueue admitted %s %s, but no process serves its scheduler %s (the tree's pod of it is Unschedulable, as SystemLands said), so none of its pods is ever scheduled", tenant, class, s.kind, s.name, name)
		return
	}
	done := func(o outcome) bool { return len(fr.judgeUnit(tenant, class, s, u, o)) == 0 }
	o, err := settle(fr.ctx, fr.cp, s.ns, s.sel, s.pods, len(fr.nodes.nodes), failedCreates(fr.ctx, fr.cp, s.ns, fr.owners(s.kind, s.ns, s.sel, s.uid)), done)
	if err != nil {
		fr.t.Fatal(err)
	}
	fr.st.UnitPods[s.kind] += o.created
	fr.st.UnitBound += len(o.bound)
	fr.st.UnitPending += len(o.pending)
	fr.st.UnitGated += len(o.gated)
	fr.t.Logf("tenant %s, class %s: %s %s's pods: %s", tenant, class, s.kind, s.name, o)
	bad := fr.judgeUnit(tenant, class, s, u, o)
	if s.kind == keys.KindStatefulSet {
		bad = append(bad, fr.podGroup(s)...)
	}
	if len(bad) > 0 {
		fr.fail("tenant %s, class %s: the pods of the %s Kueue admitted disagree with the checker's unit:\n  %s", tenant, class, s.kind, strings.Join(bad, "\n  "))
		fr.diagnose(s.ns, s.name)
	}
}

// judgeUnit lists how the admitted pods contradict the checker's unit: a
// pod bound outside its flavor's pool, or where Kueue admitted it nowhere;
// other than Pinned's Placed of each flavor's admitted pods bound; a pod
// Kueue left pending not gated; quota admission refusing pods where the
// checker found no tenant quota too small for one workload (QuotaFit), or
// not refusing where it did (KueueResourceQuota needs several: overQuota).
func (fr *fleetRun) judgeUnit(tenant, class string, s *submission, u *check.Unit, o outcome) []string {
	var bad []string
	boundTo := map[string]int{}
	for _, pod := range slices.Sorted(maps.Keys(o.bound)) {
		node := o.bound[pod]
		f := s.flavorOf(pod)
		if f == "" {
			bad = append(bad, fmt.Sprintf("pod %s bound to %s, though Kueue admitted it to no flavor", pod, node))
			continue
		}
		boundTo[f]++
		if pool, want := fr.nodes.poolOf[node], fr.flavorPool(f); pool != want {
			bad = append(bad, fmt.Sprintf("pod %s bound to node %s of pool %s, not of flavor %s's pool %s", pod, node, pool, f, want))
		}
	}
	quota := false
	for _, f := range fr.res.Report.Findings {
		if f.Tenant == tenant && f.Class == class && f.Check == resourcequota.IDQuotaFit {
			quota = true
		}
	}
	admitted, pending := s.admittedTo()
	switch {
	case quota && len(o.failedCreate) == 0:
		bad = append(bad, fmt.Sprintf("the checker found tenant %s's quota too small, but the %s controller created every pod (%d)", tenant, s.kind, o.created))
	case !quota && len(o.failedCreate) > 0:
		bad = append(bad, fmt.Sprintf("the %s controller could not create pods, which the checker did not predict: %s", s.kind, o.failedCreate[0]))
	case !quota:
		for _, f := range slices.Sorted(maps.Keys(admitted)) {
			p := pinnedFor(u, f)
			switch {
			case p == nil:
				bad = append(bad, fmt.Sprintf("Kueue admitted %d pods to flavor %s, where the checker's unit pins none", admitted[f], f))
			case int(p.Admitted) != admitted[f]:
				// Admission already disagrees (fills).
			case int64(boundTo[f]) != p.Placed:
				why := ""
				if len(p.Reasons) > 0 {
					why = " (" + strings.Join(p.Reasons, ", ") + ")"
				}
				bad = append(bad, fmt.Sprintf("Kueue admitted %d pods to flavor %s; the checker says kube-scheduler places %d of them%s, it bound %d (%s)", admitted[f], f, p.Placed, why, boundTo[f], firstMessage(o)))
			}
		}
		if len(o.gated) != pending {
			bad = append(bad, fmt.Sprintf("Kueue left %d pods pending, %d are gated", pending, len(o.gated)))
		}
	}
	return bad
}

// podGroup: every pod of a StatefulSet carries its Workload's name as its
// pod group, of all the replicas (Kueue's statefulset pod reconciler; the
// name is an annotation under the WorkloadIdentifierAnnotations gate, on
// by default, else a label: utilpod.GetPodGroupName), so Kueue admitted
// them as one.
func (fr *fleetRun) podGroup(s *submission) []string {
	wl := s.decisions[""].workload
	pods, err := fr.cp.Client.CoreV1().Pods(s.ns).List(fr.ctx, metav1.ListOptions{LabelSelector: s.sel})
	if err != nil {
		return []string{err.Error()}
	}
	var bad []string
	for _, p := range pods.Items {
		g := p.Annotations[kueuePodGroupLabel]
		if g == "" {
			g = p.Labels[kueuePodGroupLabel]
		}
		if g != wl {
			bad = append(bad, fmt.Sprintf("pod %s is of pod group %q, not of the StatefulSet's Workload %s", p.Name, g, wl))
		}
		if n := p.Annotations[kueuePodGroupCount]; n != fmt.Sprint(s.pods) {
			bad = append(bad, fmt.Sprintf("pod %s's group counts %q pods, not the %d replicas", p.Name, n, s.pods))
		}
	}
	return bad
}
