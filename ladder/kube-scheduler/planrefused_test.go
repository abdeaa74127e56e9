package kubesched

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/kubernetes/pkg/apis/scheduling"
	schedv1 "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	"k8s.io/kubernetes/pkg/apis/scheduling/validation"

	"github.com/gpufleet/gpufleet/compiler/plan"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// apiRefuses is the API server's answer to an update of a PriorityClass
// from old to new: defaulted as the API server stores both
// (SetObjectDefaults_PriorityClass), converted to the internal type, and
// validated by ValidatePriorityClassUpdate; its messages.
func apiRefuses(t *testing.T, old, new *schedulingv1.PriorityClass) []string {
	t.Helper()
	internal := func(pc *schedulingv1.PriorityClass) *scheduling.PriorityClass {
		pc = pc.DeepCopy()
		pc.ResourceVersion = "1" // as stored: an update names the version it replaces
		schedv1.SetObjectDefaults_PriorityClass(pc)
		var out scheduling.PriorityClass
		if err := schedv1.Convert_v1_PriorityClass_To_scheduling_PriorityClass(pc, &out, nil); err != nil {
			t.Fatal(err)
		}
		return &out
	}
	var msgs []string
	for _, e := range validation.ValidatePriorityClassUpdate(internal(new), internal(old)) {
		msgs = append(msgs, e.Error())
	}
	return msgs
}

// planRule is how plan decides a refusal: the real one, or a deliberate
// bug for the test that the differential catches it.
type planRule func(b, a *schedulingv1.PriorityClass) []string

func planRefuses(b, a *schedulingv1.PriorityClass) []string {
	return plan.NewPriorityClass(b.Name, b.Value, b.PreemptionPolicy).Refused(plan.NewPriorityClass(a.Name, a.Value, a.PreemptionPolicy))
}

// edits are every PriorityClass the example fleets write, each changed in
// one way: value up and down, each policy, the policy unset, and the
// fields the API server lets change (description, globalDefault).
func edits(t *testing.T) [][2]*schedulingv1.PriorityClass {
	t.Helper()
	files, err := filepath.Glob("../../golden/*/" + tree.PriorityClassesPath)
	if err != nil || len(files) == 0 {
		t.Fatalf("no committed PriorityClasses: %v", err)
	}
	never, lower := corev1.PreemptNever, corev1.PreemptLowerPriority
	var out [][2]*schedulingv1.PriorityClass
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range tree.Docs(b) {
			var pc schedulingv1.PriorityClass
			if err := tree.Unmarshal(d, &pc); err != nil {
				t.Fatal(err)
			}
			for _, edit := range []func(*schedulingv1.PriorityClass){
				func(p *schedulingv1.PriorityClass) {},
				func(p *schedulingv1.PriorityClass) { p.Value++ },
				func(p *schedulingv1.PriorityClass) { p.Value -= 1000 },
				func(p *schedulingv1.PriorityClass) { p.PreemptionPolicy = &never },
				func(p *schedulingv1.PriorityClass) { p.PreemptionPolicy = &lower },
				func(p *schedulingv1.PriorityClass) { p.PreemptionPolicy = nil },
				func(p *schedulingv1.PriorityClass) { p.Description += " (edited)" },
				func(p *schedulingv1.PriorityClass) { p.GlobalDefault = !p.GlobalDefault },
				func(p *schedulingv1.PriorityClass) { p.Value *= 2; p.PreemptionPolicy = &never },
			} {
				a := pc.DeepCopy()
				edit(a)
				out = append(out, [2]*schedulingv1.PriorityClass{&pc, a})
			}
		}
	}
	return out
}

// disagreements counts the edits where rule and the API server differ:
// which updates are refused, and in what words.
func disagreements(t *testing.T, rule planRule, log bool) (n, refused, total int) {
	t.Helper()
	for _, e := range edits(t) {
		want, got := apiRefuses(t, e[0], e[1]), rule(e[0], e[1])
		total++
		if len(want) > 0 {
			refused++
		}
		if !slices.Equal(got, want) {
			n++
		}
		if !slices.Equal(got, want) && log {
			t.Logf("PriorityClass %s: plan says %q, the API server %q", e[0].Name, got, want)
		}
	}
	return n, refused, total
}

// plan calls refused exactly the PriorityClass updates the API server's
// own update validation refuses, in its words.
func TestPlanRefusedIsAPIServers(t *testing.T) {
	n, refused, total := disagreements(t, planRefuses, true)
	if n > 0 {
		t.Fatalf("plan and ValidatePriorityClassUpdate disagree on %d of %d edits", n, total)
	}
	if refused == 0 || refused == total {
		t.Fatalf("%d of %d edits refused: the edits test nothing", refused, total)
	}
	t.Logf("%d PriorityClass edits, %d refused, plan agrees on all", total, refused)
}

// A plan that compares the policies as written, not as the API server
// defaults them, calls "unset → PreemptLowerPriority" refused; one that
// ignores the policy misses a refusal. The differential catches both.
func TestPlanRefusedCatchesBugs(t *testing.T) {
	for name, bug := range map[string]planRule{
		"policy not defaulted": func(b, a *schedulingv1.PriorityClass) []string {
			out := planRefuses(b, a)
			if (b.PreemptionPolicy == nil) != (a.PreemptionPolicy == nil) && len(out) == 0 {
				out = append(out, "preemptionPolicy: changed")
			}
			return out
		},
		"policy ignored": func(b, a *schedulingv1.PriorityClass) []string {
			c := a.DeepCopy()
			c.PreemptionPolicy = b.PreemptionPolicy
			return planRefuses(b, c)
		},
	} {
		t.Run(name, func(t *testing.T) {
			if n, _, total := disagreements(t, bug, false); n == 0 {
				t.Errorf("the bug %q went unnoticed in %d edits", name, total)
			} else {
				t.Logf("caught on %d of %d edits", n, total)
			}
		})
	}
}
