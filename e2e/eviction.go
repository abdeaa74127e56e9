package e2e

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// survivesEviction proves that the fleet's first spot Job class survives a
// disruption: one pod of its example Job is evicted through the Eviction
// API (which marks it DisruptionTarget, as Karpenter's and the spot
// interruption's drains do), the harness then does what the kubelet would
// (the pod fails and goes), and the real Job controller must replace it
// without failing the Job. A copy of the Job without its podFailurePolicy
// and with backoffLimit 0 (what the tree carried before) must fail on the
// same eviction, so the check is seen to be able to fail.
func (fr *fleetRun) survivesEviction() {
	c := fr.spotJobClass()
	if c == nil {
		return
	}
	dyn, err := dynamic.NewForConfig(fr.cp.Config)
	if err != nil {
		fr.t.Fatal(err)
	}
	ns := namespaceOf(fr.res, c.Name)
	fr.ensureNodes(fr.classNodes(c, tenantOf(fr.res, c.Name)))
	for _, tc := range []struct {
		suffix string
		strip  bool
	}{{"-evict", false}, {"-evict-bare", true}} {
		var j batchv1.Job
		if err := tree.Decode(fr.res.Tree[tree.ClassExample(c.Name)], &j); err != nil {
			fr.t.Fatal(err)
		}
		j.Namespace, j.Name = ns, c.Name[:min(len(c.Name), 50)]+tc.suffix
		if tc.strip {
			zero := int32(0)
			j.Spec.PodFailurePolicy, j.Spec.BackoffLimit = nil, &zero
		}
		failed, err := fr.evictOne(&j, int(c.Pods))
		fr.clearJob(dyn, ns, j.Name)
		switch {
		case err != nil:
			fr.fail("class %s: %v", c.Name, err)
		case !tc.strip && failed != "":
			fr.fail("class %s: Job %s failed when one of its pods was evicted: %s", c.Name, j.Name, failed)
		case tc.strip && failed == "":
			fr.fail("class %s: Job %s, without a podFailurePolicy and with backoffLimit 0, survived the eviction: the check cannot fail", c.Name, j.Name)
		default:
			fr.t.Logf("class %s: Job %s, one pod evicted: %s", c.Name, j.Name, map[bool]string{false: "replaced, the Job runs on", true: "failed (" + failed + "), as it must without the policy"}[tc.strip])
		}
	}
	fr.st.Evictions++
}

// spotJobClass is the first Job class that tolerates spot and lands, one
// that asks for GPUs if there is one.
func (fr *fleetRun) spotJobClass() *sched.Class {
	var found *sched.Class
	for i := range fr.cl.Classes {
		c := &fr.cl.Classes[i]
		if c.Kind != keys.KindJob || !tolerates(c.Pod, keys.TaintSpot) {
			continue
		}
		e := expect(fr.res.Report, c.Name, tenantOf(fr.res, c.Name), func(pool string) []string { return fr.cellReasons(c, pool) })
		switch {
		case e.refused:
		case requestsGPU(c.Pod):
			return c
		case found == nil:
			found = c
		}
	}
	return found
}

func tolerates(p *corev1.Pod, key string) bool {
	for _, t := range p.Spec.Tolerations {
		if t.Key == key || (t.Key == "" && t.Operator == corev1.TolerationOpExists) {
			return true
		}
	}
	return false
}

// evictOne runs j until its pods are bound, evicts one, plays the kubelet,
// and waits until the Job either has want pods running again with none
// counted failed, or has failed; it returns the Failed condition's reason,
// or "".
func (fr *fleetRun) evictOne(j *batchv1.Job, want int) (string, error) {
	jobs, pods := fr.cp.Client.BatchV1().Jobs(j.Namespace), fr.cp.Client.CoreV1().Pods(j.Namespace)
	if _, err := jobs.Create(fr.ctx, j, metav1.CreateOptions{}); err != nil {
		return "", fmt.Errorf("create Job %s: %w", j.Name, err)
	}
	o, err := fr.jobPods(j.Namespace, j.Name, want)
	if err != nil {
		return "", err
	}
	if len(o.bound) != want {
		return "", fmt.Errorf("Job %s: %d of %d pods bound before the eviction (%s)", j.Name, len(o.bound), want, firstMessage(o))
	}
	var victim string
	for p := range o.bound {
		victim = max(victim, p) // any one; the greatest name, to be repeatable
	}
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: victim, Namespace: j.Namespace}}
	if err := pods.EvictV1(fr.ctx, ev); err != nil {
		return "", fmt.Errorf("evict %s: %w", victim, err)
	}
	// The kubelet stops the evicted pod's containers, reports it Failed
	// (restartPolicy Never) and deletes it; none runs here.
	p, err := pods.Get(fr.ctx, victim, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	p.Status.Phase = corev1.PodFailed
	for _, ct := range p.Spec.Containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: ct.Name, Image: ct.Image,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error"}}})
	}
	if _, err := pods.UpdateStatus(fr.ctx, p, metav1.UpdateOptions{}); err != nil {
		return "", fmt.Errorf("pod %s: report Failed: %w", victim, err)
	}
	zero := int64(0)
	if err := pods.Delete(fr.ctx, victim, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		return "", fmt.Errorf("pod %s: delete: %w", victim, err)
	}
	var failed, state string
	err = poll(60*time.Second, 200*time.Millisecond, func() (bool, error) {
		got, err := jobs.Get(fr.ctx, j.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		// FailureTarget decides the Job's fate; Failed follows only once
		// its other pods are terminal, which takes a kubelet.
		for _, c := range got.Status.Conditions {
			if (c.Type == batchv1.JobFailed || c.Type == batchv1.JobFailureTarget) && c.Status == corev1.ConditionTrue {
				failed = c.Reason
				return true, nil
			}
		}
		list, err := pods.List(fr.ctx, metav1.ListOptions{LabelSelector: jobNameLabel + "=" + j.Name})
		if err != nil {
			return false, err
		}
		running := 0
		for _, p := range list.Items {
			if p.DeletionTimestamp == nil && p.Spec.NodeName != "" && p.Name != victim {
				running++
			}
		}
		state = fmt.Sprintf("%d of %d pods bound, %d counted failed", running, want, got.Status.Failed)
		return running == want && got.Status.Failed == 0, nil
	})
	if err != nil {
		return "", fmt.Errorf("Job %s after the eviction of %s: %w (%s)", j.Name, victim, err, state)
	}
	return failed, nil
}
