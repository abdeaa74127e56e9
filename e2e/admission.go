package e2e

import (
	"fmt"
	"maps"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

var workloads = schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "workloads"}

// kueueDecision is what the running Kueue did with a submitted Job.
type kueueDecision struct {
	admitted bool
	flavors  map[string]string
	message  string
}

func (d kueueDecision) String() string {
	if d.admitted {
		return fmt.Sprintf("admitted to %v", d.flavors)
	}
	return "pending: " + d.message
}

// admission submits, for every tenant that queues a class, each such
// class's example Job (suspended, labelled for the tenant's LocalQueue) in
// the tenant's first namespace, one at a time on an otherwise empty
// cluster, and holds the running Kueue's decision to the checker's: the
// flavor it admits to, or the message it leaves the Workload pending with.
func (fr *fleetRun) admission() {
	m, err := kueuemodel.New(tree.Bytes(fr.res.Tree))
	if err != nil {
		fr.t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(fr.cp.Config)
	if err != nil {
		fr.t.Fatal(err)
	}
	// clearExamples took the tree's own example Jobs away: each submission
	// below meets an empty cluster.
	for _, q := range compiler.KueueIntent(fr.res.Fleet) {
		ns := q.Namespace
		for _, class := range q.Classes {
			c := fr.cl.Class(class)
			pods := kueuemodel.UnitPods(c)
			a := m.Assign(q.ClusterQueue, c.Pod, kueuemodel.Request(c.AsWritten(), m.LimitRanges[ns]), pods)
			want := kueueDecision{admitted: a.Admitted(), flavors: map[string]string{}, message: a.Message}
			if want.admitted {
				for r, f := range a.Flavors {
					want.flavors[string(r)] = f
				}
			}
			// The admitted Job's pods need the nodes of its flavor's pool.
			fr.ensureNodes(fr.fullSize(class))
			got, job, err := fr.submit(dyn, ns, class)
			if err != nil {
				fr.fail("tenant %s, class %s: %v", q.Tenant, class, err)
				if job != "" {
					fr.clearJob(dyn, ns, job)
				}
				continue
			}
			fr.st.Queued++
			if got.admitted {
				fr.st.Admitted++
			}
			fr.t.Logf("tenant %s, class %s in %s: Kueue %s", q.Tenant, class, ns, got)
			if got.admitted != want.admitted || got.message != want.message || !maps.Equal(got.flavors, want.flavors) {
				fr.fail("tenant %s, class %s: the running Kueue and the checker disagree:\n  checker: %s\n  Kueue:   %s", q.Tenant, class, want, got)
			}
			if got.admitted {
				fr.admittedPods(q, class, ns, job, got, int(pods))
			}
			fr.clearJob(dyn, ns, job)
		}
		if hasFinding(fr.res.Report, check.IDKueueResourceQuota, q.Tenant) && len(q.Classes) > 0 {
			fr.ensureNodes(fr.fullSize(q.Classes[0]))
			fr.overQuota(dyn, q, q.Classes[0], 8)
		}
	}
}

func hasFinding(r *check.Report, id check.ID, tenant string) bool {
	for _, f := range r.Findings {
		if f.Check == id && f.Tenant == tenant {
			return true
		}
	}
	return false
}

// admittedPods holds the pods the Job controller makes of an admitted Job
// to the checker (judgeJobPods).
func (fr *fleetRun) admittedPods(q kueuemodel.Queue, class, ns, job string, d kueueDecision, want int) {
	flavor := d.flavors[keys.ResourceGPU]
	if flavor == "" {
		for _, f := range d.flavors {
			flavor = f // one resource group: every resource has the same flavor
		}
	}
	o, err := fr.jobPods(ns, job, want)
	if err != nil {
		fr.t.Fatal(err)
	}
	fr.st.JobPods += o.created
	fr.st.JobPodsBound += len(o.bound)
	fr.t.Logf("tenant %s, class %s: Job %s's pods on flavor %s: %s", q.Tenant, class, job, flavor, o)
	if bad := fr.judgeJobPods(q, class, flavor, want, o); len(bad) > 0 {
		fr.fail("tenant %s, class %s: the pods of the Job Kueue admitted disagree with the checker:\n  %s", q.Tenant, class, strings.Join(bad, "\n  "))
		fr.diagnose(ns, job)
	}
}

func (fr *fleetRun) clearJob(dyn dynamic.Interface, ns, job string) {
	if err := clearJobs(fr, dyn, ns, job); err != nil {
		fr.fail("%v", err)
	}
}

// submit creates the class's example Job in ns and waits for Kueue to
// reserve quota for its Workload or to say why it cannot. It returns the
// Job's name, for the caller to delete it.
func (fr *fleetRun) submit(dyn dynamic.Interface, ns, class string) (kueueDecision, string, error) {
	// A name of its own: Kueue, still finishing the Workload of the tree's
	// example Job of the same name (deleted just before), took the new
	// Job's Workload for that orphan and finished it.
	return fr.submitAs(dyn, ns, class, strings.TrimSuffix(class[:min(len(class), 60)], "-")+"-kq")
}

// submitAs is submit with the Job renamed, unless name is empty.
func (fr *fleetRun) submitAs(dyn dynamic.Interface, ns, class, name string) (kueueDecision, string, error) {
	var j batchv1.Job
	if err := tree.Decode(fr.res.Tree[tree.ClassExample(class)], &j); err != nil {
		return kueueDecision{}, "", err
	}
	j.Namespace = ns
	if name != "" {
		j.Name = name
	}
	jobs := fr.cp.Client.BatchV1().Jobs(ns)
	created, err := jobs.Create(fr.ctx, &j, metav1.CreateOptions{})
	if err != nil {
		return kueueDecision{}, "", fmt.Errorf("create Job: %w", err)
	}
	d, err := fr.decision(dyn, ns, j.Name, created.UID)
	return d, j.Name, err
}

// decision waits for Kueue to reserve quota for the Workload of the Job
// with that UID, or to say why it cannot.
func (fr *fleetRun) decision(dyn dynamic.Interface, ns, job string, uid types.UID) (kueueDecision, error) {
	var d kueueDecision
	err := poll(60*time.Second, 200*time.Millisecond, func() (bool, error) {
		list, err := dyn.Resource(workloads).Namespace(ns).List(fr.ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, w := range list.Items {
			if !ownedBy(&w, uid) {
				continue
			}
			var ok bool
			d, ok = decisionOf(&w)
			return ok, nil
		}
		return false, nil
	})
	if err != nil {
		return d, fmt.Errorf("Kueue made no decision on Job %s/%s: %w\n%s", ns, job, err, fr.kueue.p.grep(20, job))
	}
	return d, nil
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
		for _, w := range list.Items {
			if w.GetDeletionTimestamp() == nil {
				if err := wls.Delete(fr.ctx, w.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
					return false, err
				}
			}
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

func ownedBy(u *unstructured.Unstructured, uid any) bool {
	for _, o := range u.GetOwnerReferences() {
		if string(o.UID) == fmt.Sprint(uid) {
			return true
		}
	}
	return false
}

// decisionOf reads a Workload's QuotaReserved condition: true with the
// admission's flavors, or false with Kueue's message once it has tried.
func decisionOf(w *unstructured.Unstructured) (kueueDecision, bool) {
	conds, _, _ := unstructured.NestedSlice(w.Object, "status", "conditions")
	for _, c := range conds {
		cond, _ := c.(map[string]any)
		if cond["type"] != "QuotaReserved" {
			continue
		}
		if cond["status"] == "True" {
			d := kueueDecision{admitted: true, flavors: map[string]string{}}
			psas, _, _ := unstructured.NestedSlice(w.Object, "status", "admission", "podSetAssignments")
			for _, psa := range psas {
				fl, _, _ := unstructured.NestedStringMap(psa.(map[string]any), "flavors")
				maps.Copy(d.flavors, fl)
			}
			return d, true
		}
		msg, _ := cond["message"].(string)
		return kueueDecision{message: msg}, msg != ""
	}
	return kueueDecision{}, false
}
