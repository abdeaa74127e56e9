package kubesched

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/quota/v1/evaluator/core"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/gpufleet/gpufleet/compiler/plan"
)

// usagePods are pods as 'kubectl get pods -A -o json' lists them: requests
// and limits, init containers and a restartable sidecar, a pod-level
// overhead, extended resources (nvidia.com/gpu, a MIG slice, EFA, a DRA
// device class's name), hugepages, a kubernetes.io resource the evaluator
// does not charge as requests.*, and pods that ended.
func usagePods() []*corev1.Pod {
	q := resource.MustParse
	rl := func(kv ...string) corev1.ResourceList {
		out := corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			out[corev1.ResourceName(kv[i])] = q(kv[i+1])
		}
		return out
	}
	always := corev1.ContainerRestartPolicyAlways
	pod := func(phase corev1.PodPhase, init []corev1.Container, cs ...corev1.Container) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ml"}, Spec: corev1.PodSpec{InitContainers: init, Containers: cs}, Status: corev1.PodStatus{Phase: phase}}
	}
	c := func(req, lim corev1.ResourceList) corev1.Container {
		return corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{Requests: req, Limits: lim}}
	}
	out := []*corev1.Pod{
		pod("", nil, c(rl("cpu", "2", "memory", "8Gi", "nvidia.com/gpu", "1"), rl("memory", "8Gi", "nvidia.com/gpu", "1"))),
		pod(corev1.PodRunning, nil, c(rl("cpu", "500m"), rl("cpu", "1")), c(rl("cpu", "250m", "memory", "1Gi"), nil)),
		pod(corev1.PodPending, []corev1.Container{c(rl("cpu", "4", "memory", "2Gi"), nil)}, c(rl("cpu", "1"), nil)),
		pod(corev1.PodRunning, []corev1.Container{{Name: "side", RestartPolicy: &always, Resources: corev1.ResourceRequirements{Requests: rl("cpu", "1")}}}, c(rl("cpu", "1"), nil)),
		pod(corev1.PodRunning, nil, c(rl("nvidia.com/mig-1g.10gb", "2", "vpc.amazonaws.com/efa", "4", "hugepages-2Mi", "64Mi", "ephemeral-storage", "10Gi"), rl("nvidia.com/mig-1g.10gb", "2", "vpc.amazonaws.com/efa", "4", "hugepages-2Mi", "64Mi", "ephemeral-storage", "20Gi"))),
		pod(corev1.PodRunning, nil, c(rl("deviceclass.resource.kubernetes.io/gpu.nvidia.com", "1", "example.kubernetes.io/thing", "1"), nil)),
		pod(corev1.PodSucceeded, nil, c(rl("cpu", "4"), nil)),
		pod(corev1.PodFailed, nil, c(rl("nvidia.com/gpu", "8"), rl("nvidia.com/gpu", "8"))),
		pod(corev1.PodRunning, nil, c(nil, nil)),
	}
	withOverhead := pod(corev1.PodRunning, nil, c(rl("cpu", "1"), nil))
	withOverhead.Spec.Overhead = rl("cpu", "250m", "memory", "120Mi")
	return append(out, withOverhead)
}

// evaluatorUsage is the API server's own charge of a pod against a
// ResourceQuota (core.PodUsageFunc), less count/pods, which plan's quota
// cuts do not compare (gpufleet writes no object-count quota).
func evaluatorUsage(t *testing.T, p *corev1.Pod) corev1.ResourceList {
	t.Helper()
	u, err := core.PodUsageFunc(p, clocktesting.NewFakeClock(time.Unix(0, 0)))
	if err != nil {
		t.Fatal(err)
	}
	delete(u, "count/pods")
	if len(u) == 0 {
		return nil
	}
	return u
}

func usageDisagreements(t *testing.T, usage func(*corev1.Pod) corev1.ResourceList) []string {
	var bad []string
	for i, p := range usagePods() {
		want, got := evaluatorUsage(t, p), usage(p)
		if !apiequality.Semantic.DeepEqual(want, got) {
			bad = append(bad, fmt.Sprintf("pod %d: the evaluator charges %v, plan %v", i, want, got))
		}
	}
	return bad
}

// TestPlanQuotaUsageIsTheEvaluators holds plan.PodUsage, what plan
// --pods charges a live pod against its namespace's quota, to the API
// server's pod evaluator on every pod of usagePods.
func TestPlanQuotaUsageIsTheEvaluators(t *testing.T) {
	for _, d := range usageDisagreements(t, plan.PodUsage) {
		t.Error(d)
	}
	t.Logf("%d pods charged alike", len(usagePods()))
}

// The differential catches a plan that charges an ended pod, and one that
// forgets an init container's requests (the larger of them and the
// containers' sum is what a pod holds).
func TestPlanQuotaUsageCatchesBugs(t *testing.T) {
	ended := func(p *corev1.Pod) corev1.ResourceList {
		q := p.DeepCopy()
		q.Status.Phase = corev1.PodRunning
		return plan.PodUsage(q)
	}
	noInit := func(p *corev1.Pod) corev1.ResourceList {
		q := p.DeepCopy()
		q.Spec.InitContainers = nil
		return plan.PodUsage(q)
	}
	for name, bug := range map[string]func(*corev1.Pod) corev1.ResourceList{"charges ended pods": ended, "forgets init containers": noInit} {
		if len(usageDisagreements(t, bug)) == 0 {
			t.Errorf("a plan that %s agrees with the evaluator", name)
		}
	}
}
