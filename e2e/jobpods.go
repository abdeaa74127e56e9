package e2e

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/gpufleet/gpufleet/compiler/check"
)

// jobNameLabel is what the Job controller labels its pods with.
const jobNameLabel = batchv1.JobNameLabel

// jobOutcome is what became of an admitted Job's pods: those the Job
// controller created, bound or left unschedulable by kube-scheduler, and
// why it could not create the others.
type jobOutcome struct {
	outcome
	failedCreate []string
}

// jobPods waits until the Job controller has created want pods for job (or
// reported FailedCreate) and kube-scheduler has bound each or found it
// unschedulable on every node, and the state has held still for a moment.
func (fr *fleetRun) jobPods(ns, job string, want int) (jobOutcome, error) {
	var o jobOutcome
	all := fmt.Sprintf("0/%d nodes are available", len(fr.nodes.nodes))
	var last jobOutcome
	stillSince := time.Now()
	err := poll(60*time.Second, 200*time.Millisecond, func() (bool, error) {
		if err := fr.cp.Alive(); err != nil {
			return false, err
		}
		list, err := fr.cp.Client.CoreV1().Pods(ns).List(fr.ctx, metav1.ListOptions{LabelSelector: jobNameLabel + "=" + job})
		if err != nil {
			return false, err
		}
		cur := jobOutcome{outcome: outcome{created: len(list.Items), bound: map[string]string{}, pending: map[string]string{}}}
		settled := 0
		for _, p := range list.Items {
			if p.Spec.NodeName != "" {
				cur.bound[p.Name] = p.Spec.NodeName
				settled++
				continue
			}
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable && strings.HasPrefix(c.Message, all) {
					cur.pending[p.Name] = c.Message
					settled++
				}
			}
		}
		events, err := fr.cp.Client.CoreV1().Events(ns).List(fr.ctx, metav1.ListOptions{FieldSelector: "involvedObject.kind=Job,involvedObject.name=" + job + ",reason=FailedCreate"})
		if err != nil {
			return false, err
		}
		for _, e := range events.Items {
			cur.failedCreate = append(cur.failedCreate, e.Message)
		}
		o = cur
		if settled < cur.created || (cur.created < want && len(cur.failedCreate) == 0) {
			stillSince = time.Now()
			return false, nil
		}
		if cur.created == want && len(cur.pending) == 0 {
			return true, nil
		}
		if !maps.Equal(cur.bound, last.bound) || !maps.Equal(cur.pending, last.pending) || len(cur.failedCreate) != len(last.failedCreate) {
			last, stillSince = cur, time.Now()
		}
		return time.Since(stillSince) > 5*time.Second, nil
	})
	if err != nil && !errors.Is(err, errTimeout) {
		return o, err
	}
	return o, nil
}

// judgeJobPods holds an admitted Job's pods to the checker: bound only to
// nodes of the pool Kueue admitted it to; all of them bound where the
// checker proved the whole workload fits that pool; and refused by quota
// admission only where the checker found the tenant's quota too small for
// one workload (QuotaFit; KueueResourceQuota needs several: overQuota).
func (fr *fleetRun) judgeJobPods(q check.QueueIntent, class, flavor string, want int, o jobOutcome) []string {
	var bad []string
	for pod, node := range o.bound {
		if pool := fr.nodes.poolOf[node]; pool != flavor {
			bad = append(bad, fmt.Sprintf("pod %s bound to node %s of pool %s, not of flavor %s's", pod, node, pool, flavor))
		}
	}
	quota := false
	for _, f := range fr.res.Report.Findings {
		if f.Tenant == q.Tenant && f.Class == class && f.Check == check.IDQuotaFit {
			quota = true
		}
	}
	cell := fr.res.Report.Cell(class, flavor)
	fits := cell != nil && cell.Fits && cell.Capacity >= int64(want)
	switch {
	case quota && len(o.failedCreate) == 0:
		bad = append(bad, fmt.Sprintf("the checker found tenant %s's quota too small, but the Job controller created every pod (%d)", q.Tenant, o.created))
	case !quota && len(o.failedCreate) > 0:
		bad = append(bad, fmt.Sprintf("the Job controller could not create pods, which the checker did not predict: %s", o.failedCreate[0]))
	case !quota && fits && len(o.bound) != want:
		bad = append(bad, fmt.Sprintf("the checker proved %d pods fit pool %s, but %d of %d created were bound (%s)", want, flavor, len(o.bound), o.created, firstMessage(o.outcome)))
	case !quota && !fits && len(o.pending) == 0:
		bad = append(bad, fmt.Sprintf("the checker found that pool %s cannot hold the %d pods, but all %d were bound", flavor, want, len(o.bound)))
	}
	return bad
}

// overQuota proves a KueueResourceQuota finding on the running Kueue: it
// submits copies of the class's example Job until Kueue stops admitting
// them (at most max), and requires the Job controller to have been refused
// a pod by quota admission ("exceeded quota") for one of those Kueue
// admitted, as the finding says.
func (fr *fleetRun) overQuota(dyn dynamic.Interface, q check.QueueIntent, class string, max int) {
	ns := q.Namespace
	var jobs []string
	// Every Job in the namespace at once: clearJobs waits for all of them.
	defer fr.clearJob(dyn, ns, "")
	want := 1
	if c := fr.cl.Class(class); c != nil && c.Gang {
		want = int(c.Pods)
	}
	refused := ""
	for i := 0; i < max && refused == ""; i++ {
		d, job, err := fr.submitAs(dyn, ns, class, fmt.Sprintf("%s-over-%d", class, i))
		if job != "" {
			jobs = append(jobs, job)
		}
		if err != nil {
			fr.fail("tenant %s: %v", q.Tenant, err)
			return
		}
		if !d.admitted {
			break
		}
		o, err := fr.jobPods(ns, job, want)
		if err != nil {
			fr.t.Fatal(err)
		}
		for _, m := range o.failedCreate {
			if strings.Contains(m, "exceeded quota") {
				refused = m
			}
		}
	}
	fr.t.Logf("tenant %s: %d Jobs of class %s submitted; quota admission: %q", q.Tenant, len(jobs), class, refused)
	if refused == "" {
		fr.fail("tenant %s: the checker found that its ClusterQueue may admit more than its ResourceQuota allows, but Kueue admitted no Job whose pods quota admission refused (%d submitted)", q.Tenant, len(jobs))
		return
	}
	fr.st.OverQuota++
}
