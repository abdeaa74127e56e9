package e2e

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/queueing"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

var workloads = schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "workloads"}

// kueueDecision is what the running Kueue did with one Workload.
type kueueDecision struct {
	admitted bool
	flavors  map[string]string
	// podSets is each PodSet's flavor (its GPUs', else any resource's),
	// by name: an ML kind's several.
	podSets map[string]string
	message string
	// workload is the Workload's name.
	workload string
	// topology is the admission's topology assignment, where Kueue's
	// topology-aware scheduling placed it (one PodSet: a Job's, a pod
	// group's), or why it could not be read.
	topology    *tasAssignment
	topologyErr error
	// maxExec is the Workload's spec.maximumExecutionTimeSeconds, which
	// Kueue's job reconciler copies from the workload's
	// kueue.x-k8s.io/max-exec-time-seconds label (0: none).
	maxExec int64
}

func (d kueueDecision) String() string {
	if d.admitted {
		return fmt.Sprintf("admitted to %v", d.flavors)
	}
	return "pending: " + d.message
}

// admission submits, for every tenant that queues a class, each such
// class's example workload (a Job, a StatefulSet or a Deployment, as the
// tree writes it: labelled for the tenant's LocalQueue) in the tenant's
// first namespace, one at a time on an otherwise empty cluster. Kueue's
// webhooks suspend or gate it, and Kueue's Job, StatefulSet and pod
// controllers make its Workloads. It holds the running Kueue's decision to
// the checker's (the flavor it admits one unit to, or the message it
// leaves the Workload pending with; a Deployment's replicas to the flavors
// the checker's unit fills), then the admitted pods to the unit's Pinned
// (queuedPods).
func (fr *fleetRun) admission() {
	m := fr.kueueModel()
	dyn, err := dynamic.NewForConfig(fr.cp.Config)
	if err != nil {
		fr.t.Fatal(err)
	}
	// clearExamples took the tree's own example workloads away: each
	// submission below meets an empty cluster.
	for _, q := range compiler.KueueIntent(fr.res.Fleet) {
		ns := q.Namespace
		for _, class := range q.Classes {
			c := fr.cl.Class(class)
			if mlKind(c) {
				if u := unitOf(fr.res.Report, q.Tenant, class); u != nil && len(u.PodSets) > 0 && mlAdmitted(c.Kind) {
					fr.mlAdmission(dyn, q.Tenant, ns, class, u)
				}
				continue
			}
			a := m.Assign(q.ClusterQueue, c.Pod, m.ClassRequest(c, ns), kueuemodel.UnitPods(c))
			want := kueueDecision{admitted: a.Admitted(), flavors: map[string]string{}, message: a.Message}
			if want.admitted {
				for r, f := range a.Flavors {
					want.flavors[string(r)] = f
				}
			}
			u := unitOf(fr.res.Report, q.Tenant, class)
			if u == nil {
				fr.fail("tenant %s, class %s: the report lists no unit for a queued class", q.Tenant, class)
				continue
			}
			// The admitted pods need the nodes of their flavor's pool; a
			// workload placed by topology, the nodes that stand.
			fr.ensureNodes(fr.kueueSize(class))
			te, bad := fr.expectTAS(q.Tenant, c, a, kueuemodel.UnitPods(c), u)
			for _, b := range bad {
				fr.fail("tenant %s, class %s: %s", q.Tenant, class, b)
			}
			if te != nil && !te.admits() {
				want = kueueDecision{message: te.reason()}
			}
			s, err := fr.submit(dyn, ns, class, u)
			if err != nil {
				fr.fail("tenant %s, class %s: %v", q.Tenant, class, err)
				if s != nil {
					fr.clearSubmission(dyn, s)
				}
				continue
			}
			fr.count(s)
			got := s.first(want.flavor())
			if int64(c.MaxExecSeconds) != got.maxExec {
				fr.fail("tenant %s, class %s: the running Kueue's Workload %s has maximumExecutionTimeSeconds %d, the tree's label %d", q.Tenant, class, got.workload, got.maxExec, c.MaxExecSeconds)
			} else if got.maxExec > 0 {
				fr.t.Logf("tenant %s, class %s: the running Kueue's Workload %s runs at most %ds, as the class's label says", q.Tenant, class, got.workload, got.maxExec)
			}
			fr.t.Logf("tenant %s, class %s (%s %s in %s): Kueue %s", q.Tenant, class, s.kind, s.name, ns, s)
			if te != nil && !te.admits() {
				fr.tasRefused(dyn, q.Tenant, class, s, te)
				fr.clearSubmission(dyn, s)
				continue
			}
			if got.admitted != want.admitted || got.message != want.message || !maps.Equal(got.flavors, want.flavors) {
				fr.fail("tenant %s, class %s: the running Kueue and the checker disagree:\n  checker: %s\n  Kueue:   %s", q.Tenant, class, want, got)
			} else if !want.admitted && (a.TAS || strings.Contains(want.message, "TopologyAwareScheduling")) {
				// Refused before TAS places anything: a TAS request on a
				// flavor without a Topology, or a plain one on a TAS flavor.
				fr.st.TASUnmatched++
			}
			if bad := fills(s, u); bad != "" {
				fr.fail("tenant %s, class %s: the running Kueue and the checker's unit disagree on the %s's replicas: %s", q.Tenant, class, s.kind, bad)
			}
			tasOK := fr.tasAdmitted(q.Tenant, class, s, te)
			if s.anyAdmitted() {
				fr.queuedPods(q.Tenant, class, s, u)
				if te != nil {
					if bad := fr.boundInDomains(s); len(bad) > 0 {
						tasOK = false
						fr.fail("tenant %s, class %s: the pods Kueue placed by topology are not where it assigned them:\n  %s", q.Tenant, class, strings.Join(bad, "\n  "))
					}
				}
			}
			if tasOK && te != nil && s.anyAdmitted() {
				fr.st.TASAdmitted++
			}
			fr.clearSubmission(dyn, s)
		}
		if jc := firstJob(fr, q.Classes); jc != "" && hasFinding(fr.res.Report, queueing.IDKueueResourceQuota, q.Tenant) {
			fr.ensureNodes(fr.kueueSize(jc))
			fr.overQuota(dyn, q, jc, 8)
		}
	}
}

// tasAdmitted holds an admission to TAS: where the checker places the
// workload by topology (te), every admitted Workload carries a topology
// assignment on the nodes that exist (judgeTAS), which it logs; where it
// does not, none does. It reports whether all held.
func (fr *fleetRun) tasAdmitted(tenant, class string, s *submission, te *tasExpect) bool {
	ok := true
	for _, key := range slices.Sorted(maps.Keys(s.decisions)) {
		d := s.decisions[key]
		switch {
		case d.topologyErr != nil:
			ok = false
			fr.fail("tenant %s, class %s: Workload %s: %v", tenant, class, d.workload, d.topologyErr)
		case d.topology != nil && te == nil:
			ok = false
			fr.fail("tenant %s, class %s: Kueue placed Workload %s by topology (%s), where the checker does not place it by topology", tenant, class, d.workload, d.topology)
		case d.topology != nil:
			fr.t.Logf("tenant %s, class %s: Kueue's topology-aware scheduling placed Workload %s on flavor %s's %d standing nodes (the checker: %d to %d of %d pods fit them, %d on these): %s; pods under network nodes %s",
				tenant, class, d.workload, te.flavor, te.live.Standing, te.offline.Worst, te.offline.Best, te.offline.Count, te.live.Best, d.topology, fr.underNetwork(d.topology, te.pool))
		}
	}
	if te == nil || !s.anyAdmitted() {
		return ok
	}
	if bad := fr.judgeTAS(te, s); len(bad) > 0 {
		fr.fail("tenant %s, class %s: Kueue admitted it by topology otherwise than on the standing nodes:\n  %s", tenant, class, strings.Join(bad, "\n  "))
		return false
	}
	return ok
}

// tasRefused holds Kueue to a KueueTopology error: the workload it
// admits on quota is never admitted, for the reason the checker gives on
// the nodes that exist.
func (fr *fleetRun) tasRefused(dyn dynamic.Interface, tenant, class string, s *submission, te *tasExpect) {
	ok, admitted, seen := fr.tasRefusal(dyn, s, te.reason())
	switch {
	case admitted:
		fr.fail("tenant %s, class %s: the checker says Kueue never admits it (flavor %s's %d standing nodes fit %d of its %d pods), the running Kueue admitted it: %s", tenant, class, te.flavor, te.live.Standing, te.live.Best, te.live.Count, s)
	case !ok:
		fr.fail("tenant %s, class %s: Kueue leaves it unadmitted, but never for the checker's reason %q; its messages: %q", tenant, class, te.reason(), seen)
	default:
		fr.st.TASRefused++
		fr.t.Logf("tenant %s, class %s: Kueue leaves it unadmitted, as KueueTopology says (%d standing nodes of flavor %s): %s", tenant, class, te.live.Standing, te.flavor, te.reason())
	}
}

// firstJob is the first Job class of classes: overQuota reads the Job
// controller's FailedCreate events.
func firstJob(fr *fleetRun, classes []string) string {
	for _, c := range classes {
		if fr.res.Fleet.Class(c).Spec.Kind == keys.KindJob {
			return c
		}
	}
	return ""
}

func hasFinding(r *check.Report, id check.ID, tenant string) bool {
	for _, f := range r.Findings {
		if f.Check == id && f.Tenant == tenant {
			return true
		}
	}
	return false
}

// submit creates the class's example workload in ns and waits for Kueue's
// decisions (await; a Deployment's until they are the unit's, or hold
// still). The caller clears it.
func (fr *fleetRun) submit(dyn dynamic.Interface, ns, class string, u *check.Unit) (*submission, error) {
	// A name of its own: Kueue, still finishing the Workload of the tree's
	// example of the same name (deleted just before), took the new
	// workload's Workload for that orphan and finished it. Short enough
	// for a StatefulSet's controller-revision-hash label.
	return fr.submitAs(dyn, ns, class, strings.TrimSuffix(class[:min(len(class), 40)], "-")+"-kq", func(s *submission) bool { return fills(s, u) == "" })
}

// submitAs is submit under name.
func (fr *fleetRun) submitAs(dyn dynamic.Interface, ns, class, name string, enough func(*submission) bool) (*submission, error) {
	s, err := fr.create(ns, class, name, nil)
	if err != nil {
		return nil, err
	}
	return s, fr.await(dyn, s, enough)
}

// clearSubmission deletes a submitted workload, its pods and every
// Workload in its namespace.
func (fr *fleetRun) clearSubmission(dyn dynamic.Interface, s *submission) {
	if s.kind == keys.KindJob {
		fr.clearJob(dyn, s.ns, s.name)
		return
	}
	if err := fr.clearWorkload(dyn, s.kind, s.ns, s.name); err != nil {
		fr.fail("%v", err)
	}
	if err := clearWorkloads(fr, dyn, s.ns); err != nil {
		fr.fail("%v", err)
	}
}

func (fr *fleetRun) clearJob(dyn dynamic.Interface, ns, job string) {
	if err := clearJobs(fr, dyn, ns, job); err != nil {
		fr.fail("%v", err)
	}
}

// clearJobs deletes the Job called name in ns (every Job, if name is
// empty), its pods and every Workload there, and waits until they are
// gone. The control plane runs no garbage collector, so pods and Workloads
// go by hand, pods at once: no kubelet confirms a graceful stop.
func clearJobs(fr *fleetRun, dyn dynamic.Interface, ns, name string) error {
	sel := jobNameLabel
	if name != "" {
		sel += "=" + name
	}
	zero := int64(0)
	if err := fr.cp.Client.CoreV1().Pods(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{LabelSelector: sel}); err != nil {
		return err
	}
	jobs := fr.cp.Client.BatchV1().Jobs(ns)
	bg := metav1.DeletePropagationBackground
	if name != "" {
		if err := jobs.Delete(fr.ctx, name, metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	} else if err := jobs.DeleteCollection(fr.ctx, metav1.DeleteOptions{PropagationPolicy: &bg}, metav1.ListOptions{}); err != nil {
		return err
	}
	err := poll(60*time.Second, 200*time.Millisecond, func() (bool, error) {
		wls := dyn.Resource(workloads).Namespace(ns)
		list, err := wls.List(fr.ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		if err := deleteAll(fr, wls, list.Items); err != nil {
			return false, err
		}
		left, err := jobs.List(fr.ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		// A Job being deleted may still have made a pod: delete again.
		pods, err := fr.cp.Client.CoreV1().Pods(ns).List(fr.ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return false, err
		}
		if len(pods.Items) > 0 {
			err = fr.cp.Client.CoreV1().Pods(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{LabelSelector: sel})
			return false, err
		}
		return len(left.Items) == 0 && len(list.Items) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("Jobs and Workloads in %s did not go: %w", ns, err)
	}
	return nil
}

// clearWorkloads deletes every Workload in ns and waits until they are
// gone: with no garbage collector, a StatefulSet's or a pod's Workload
// outlives it, and would keep its quota.
func clearWorkloads(fr *fleetRun, dyn dynamic.Interface, ns string) error {
	wls := dyn.Resource(workloads).Namespace(ns)
	err := poll(60*time.Second, 200*time.Millisecond, func() (bool, error) {
		list, err := wls.List(fr.ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		if err := deleteAll(fr, wls, list.Items); err != nil {
			return false, err
		}
		return len(list.Items) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("Workloads in %s did not go: %w", ns, err)
	}
	return nil
}

// decisionOf reads a Workload's QuotaReserved condition: true with the
// admission's flavors, or false with Kueue's message once it has tried.
func decisionOf(w *unstructured.Unstructured) (kueueDecision, bool) {
	d, ok := admissionOf(w)
	d.maxExec, _, _ = unstructured.NestedInt64(w.Object, "spec", "maximumExecutionTimeSeconds")
	return d, ok
}

// admissionOf is decisionOf but for the Workload's spec.
func admissionOf(w *unstructured.Unstructured) (kueueDecision, bool) {
	conds, _, _ := unstructured.NestedSlice(w.Object, "status", "conditions")
	for _, c := range conds {
		cond, _ := c.(map[string]any)
		if cond["type"] != "QuotaReserved" {
			continue
		}
		if cond["status"] == "True" {
			d := kueueDecision{admitted: true, flavors: map[string]string{}, podSets: map[string]string{}, workload: w.GetName()}
			psas, _, _ := unstructured.NestedSlice(w.Object, "status", "admission", "podSetAssignments")
			for _, psa := range psas {
				fl, _, _ := unstructured.NestedStringMap(psa.(map[string]any), "flavors")
				maps.Copy(d.flavors, fl)
				name, _ := psa.(map[string]any)["name"].(string)
				d.podSets[name] = kueueDecision{flavors: fl}.flavor()
				if raw, ok := psa.(map[string]any)["topologyAssignment"]; ok && raw != nil {
					ta, err := parseTopologyAssignment(raw)
					switch {
					case err != nil:
						d.topologyErr = fmt.Errorf("its topology assignment: %w", err)
					case d.topology != nil:
						d.topologyErr = fmt.Errorf("topology assignments of several PodSets, where one is submitted")
					}
					d.topology = ta
				}
			}
			return d, true
		}
		msg, _ := cond["message"].(string)
		return kueueDecision{message: msg, workload: w.GetName()}, msg != ""
	}
	return kueueDecision{}, false
}

// deleteAll deletes each of the Workloads not being deleted already.
func deleteAll(fr *fleetRun, wls dynamic.ResourceInterface, items []unstructured.Unstructured) error {
	for _, w := range items {
		if w.GetDeletionTimestamp() == nil {
			if err := wls.Delete(fr.ctx, w.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
	}
	return nil
}
