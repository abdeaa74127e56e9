package e2e

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
)

// jobNameLabel is what the Job controller labels its pods with.
const jobNameLabel = batchv1.JobNameLabel

// jobPods waits until the Job controller has created want pods for job (or
// reported FailedCreate) and kube-scheduler has bound each or found it
// unschedulable on every node, and the state has held still for a moment.
func (fr *fleetRun) jobPods(ns, job string, want int) (outcome, error) {
	owner := func() (map[types.UID]bool, error) {
		j, err := fr.cp.Client.BatchV1().Jobs(ns).Get(fr.ctx, job, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return map[types.UID]bool{j.UID: true}, nil
	}
	return settle(fr.ctx, fr.cp, ns, jobNameLabel+"="+job, want, len(fr.nodes.nodes), failedCreates(fr.ctx, fr.cp, ns, owner), func(o outcome) bool {
		return o.created == want && len(o.pending) == 0
	})
}

// overQuota proves a KueueResourceQuota finding on the running Kueue: it
// submits copies of the class's example Job until Kueue stops admitting
// them (at most max), and requires the Job controller to have been refused
// a pod by quota admission ("exceeded quota") for one of those Kueue
// admitted, as the finding says.
func (fr *fleetRun) overQuota(dyn dynamic.Interface, q kueuemodel.Queue, class string, max int) {
	ns := q.Namespace
	var jobs []string
	// Every Job in the namespace at once: clearJobs waits for all of them.
	defer fr.clearJob(dyn, ns, "")
	want := 1
	if c := fr.cl.Class(class); c != nil {
		want = int(kueuemodel.UnitPods(c))
	}
	refused := ""
	for i := 0; i < max && refused == ""; i++ {
		sub, err := fr.submitAs(dyn, ns, class, fmt.Sprintf("%s-over-%d", class, i), nil)
		if sub != nil {
			jobs = append(jobs, sub.name)
		}
		if err != nil {
			fr.fail("tenant %s: %v", q.Tenant, err)
			return
		}
		if !sub.anyAdmitted() {
			break
		}
		o, err := fr.jobPods(ns, sub.name, want)
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
