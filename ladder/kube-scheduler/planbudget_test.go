package kubesched

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	scalefake "k8s.io/client-go/scale/fake"
	coretesting "k8s.io/client-go/testing"
	"k8s.io/kubernetes/pkg/controller/disruption"

	"github.com/gpufleet/gpufleet/compiler/plan"
)

// budgetCase is a serving class's workload: a Deployment of replicas, all
// Ready, and the PodDisruptionBudget beside it.
type budgetCase struct {
	replicas                     int32
	maxUnavailable, minAvailable *intstr.IntOrString
}

func (c budgetCase) String() string {
	if c.maxUnavailable != nil {
		return fmt.Sprintf("maxUnavailable %s of %d", c.maxUnavailable.String(), c.replicas)
	}
	return fmt.Sprintf("minAvailable %s of %d", c.minAvailable.String(), c.replicas)
}

func budgetCases() []budgetCase {
	var out []budgetCase
	for _, n := range []int32{1, 2, 3, 4, 7} {
		for _, v := range []intstr.IntOrString{intstr.FromInt32(0), intstr.FromInt32(1), intstr.FromInt32(2), intstr.FromInt32(9), intstr.FromString("25%"), intstr.FromString("50%"), intstr.FromString("100%")} {
			out = append(out, budgetCase{replicas: n, maxUnavailable: &v}, budgetCase{replicas: n, minAvailable: &v})
		}
	}
	return out
}

// controllerStatus runs the real disruption controller
// (k8s.io/kubernetes pkg/controller/disruption, v1.36.5) on fake clients
// holding each case's Deployment, its ReplicaSet, its Ready pods and its
// PodDisruptionBudget, and returns the status it writes to each budget.
func controllerStatus(t *testing.T, cases []budgetCase) []policyv1.PodDisruptionBudgetStatus {
	t.Helper()
	var objs []runtime.Object
	yes := true
	for i, c := range cases {
		ns := fmt.Sprintf("c%d", i)
		sel := map[string]string{"gpufleet.dev/class": "serve"}
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "serve", Namespace: ns, UID: k8stypes.UID("d-" + ns)}, Spec: appsv1.DeploymentSpec{Replicas: &c.replicas, Selector: &metav1.LabelSelector{MatchLabels: sel}}}
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "serve-1", Namespace: ns, UID: k8stypes.UID("rs-" + ns), Labels: sel,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "serve", UID: d.UID, Controller: &yes}}},
			Spec: appsv1.ReplicaSetSpec{Replicas: &c.replicas, Selector: &metav1.LabelSelector{MatchLabels: sel}}}
		objs = append(objs, d, rs)
		for p := range c.replicas {
			objs = append(objs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("serve-1-%d", p), Namespace: ns, Labels: sel,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: &yes}}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}})
		}
		objs = append(objs, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "serve", Namespace: ns, Generation: 1},
			Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: c.maxUnavailable, MinAvailable: c.minAvailable, Selector: &metav1.LabelSelector{MatchLabels: sel}}})
	}
	client := kubefake.NewClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dc := disruption.NewDisruptionController(ctx, f.Core().V1().Pods(), f.Policy().V1().PodDisruptionBudgets(), f.Core().V1().ReplicationControllers(),
		f.Apps().V1().ReplicaSets(), f.Apps().V1().Deployments(), f.Apps().V1().StatefulSets(), client,
		meta.NewDefaultRESTMapper(nil), &scalefake.FakeScaleClient{}, &fake.FakeDiscovery{Fake: &coretesting.Fake{}})
	f.Start(ctx.Done())
	go dc.Run(ctx)
	out := make([]policyv1.PodDisruptionBudgetStatus, len(cases))
	err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		for i := range cases {
			pdb, err := client.PolicyV1().PodDisruptionBudgets(fmt.Sprintf("c%d", i)).Get(ctx, "serve", metav1.GetOptions{})
			if err != nil || pdb.Status.ObservedGeneration != 1 {
				return false, nil
			}
			out[i] = pdb.Status
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("the disruption controller did not update every budget: %v", err)
	}
	return out
}

func budgetDisagreements(t *testing.T, cases []budgetCase, got []policyv1.PodDisruptionBudgetStatus, status func(*policyv1.PodDisruptionBudget, int32) (int32, int32, error)) []string {
	var bad []string
	for i, c := range cases {
		pdb := &policyv1.PodDisruptionBudget{Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: c.maxUnavailable, MinAvailable: c.minAvailable}}
		desired, allowed, err := status(pdb, c.replicas)
		if err != nil || desired != got[i].DesiredHealthy || allowed != got[i].DisruptionsAllowed || got[i].ExpectedPods != c.replicas {
			bad = append(bad, fmt.Sprintf("%s: the controller says desiredHealthy %d, disruptionsAllowed %d (expected pods %d); plan %d, %d (%v)", c, got[i].DesiredHealthy, got[i].DisruptionsAllowed, got[i].ExpectedPods, desired, allowed, err))
		}
	}
	return bad
}

// TestPlanBudgetIsTheDisruptionControllers holds plan.BudgetStatus, the
// PodDisruptionBudget plan reports for a serving class a replaced or
// destroyed pool hits, to the status the real disruption controller
// writes, on every budget of budgetCases; and catches a plan that rounds
// a percentage down, or forgets that minAvailable counts pods, not the
// replicas left.
func TestPlanBudgetIsTheDisruptionControllers(t *testing.T) {
	cases := budgetCases()
	got := controllerStatus(t, cases)
	for _, d := range budgetDisagreements(t, cases, got, plan.BudgetStatus) {
		t.Error(d)
	}
	t.Logf("%d budgets: the disruption controller's status and plan's agree", len(cases))
	roundDown := func(p *policyv1.PodDisruptionBudget, n int32) (int32, int32, error) {
		if p.Spec.MaxUnavailable != nil && p.Spec.MaxUnavailable.Type == intstr.String {
			mu, err := intstr.GetScaledValueFromIntOrPercent(p.Spec.MaxUnavailable, int(n), false)
			return max(n-int32(mu), 0), min(int32(mu), n), err
		}
		return plan.BudgetStatus(p, n)
	}
	asMax := func(p *policyv1.PodDisruptionBudget, n int32) (int32, int32, error) {
		if p.Spec.MinAvailable != nil {
			q := p.DeepCopy()
			q.Spec.MaxUnavailable, q.Spec.MinAvailable = q.Spec.MinAvailable, nil
			return plan.BudgetStatus(q, n)
		}
		return plan.BudgetStatus(p, n)
	}
	for name, bug := range map[string]func(*policyv1.PodDisruptionBudget, int32) (int32, int32, error){"rounds percentages down": roundDown, "reads minAvailable as maxUnavailable": asMax} {
		if n := len(budgetDisagreements(t, cases, got, bug)); n == 0 {
			t.Errorf("a plan that %s agrees with the disruption controller", name)
		} else {
			t.Logf("a plan that %s: %d disagreements", name, n)
		}
	}
}
