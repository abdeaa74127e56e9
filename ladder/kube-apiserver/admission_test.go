package kubeapiserver

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

var generated = flag.Int("fleets", 10, "full-feature generated fleets (their classes are class-<n>: derive.AdmissionKey)")

type fleet struct {
	name string
	res  *compiler.Result
	tree *Tree
}

func fleets(t *testing.T) []fleet {
	t.Helper()
	_, dirs, err := testfleet.Examples("../..")
	if err != nil {
		t.Fatal(err)
	}
	// The Kueue rung's fleet of one class of each ML kind.
	dirs = append(dirs, filepath.Join("..", "..", "compiler", "testdata", "kinds", "fleet.cue"))
	tmp := t.TempDir()
	for seed := 1; seed <= *generated; seed++ {
		p := filepath.Join(tmp, fmt.Sprintf("full-seed-%d.json", seed))
		if err := os.WriteFile(p, fleetgen.JSON(fleetgen.Generate(uint64(seed), fleetgen.S, fleetgen.Options{Full: true})), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, p)
	}
	var out []fleet
	for _, d := range dirs {
		res, err := compiler.Compile([]string{d})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := Read(res.Tree)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(d), ".json")
		if name == "fleet.cue" {
			name = filepath.Base(filepath.Dir(d))
		}
		out = append(out, fleet{name, res, tr})
	}
	return out
}

// judge runs every case through the plugin over tr's policies and
// returns the disagreements, and how many it admitted and refused.
func judge(t *testing.T, f fleet, tr *Tree) (wrong []string, admitted, refused int) {
	t.Helper()
	a, err := Start(tr.Policies, tr.Bindings, append(slices.Clone(tr.Namespaces), ProbeNamespaces(f.res.Fleet)...))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	for _, c := range Cases(f.res.Fleet, f.tree) {
		err := a.Admit(c.Obj, c.Old, c.Resource, c.User)
		if err == nil {
			admitted++
		} else {
			refused++
		}
		switch {
		case c.Admit && err != nil:
			wrong = append(wrong, fmt.Sprintf("%s: refused: %v", c.Name, err))
		case !c.Admit && err == nil:
			wrong = append(wrong, c.Name+": admitted")
		case !c.Admit && !strings.Contains(err.Error(), "ValidatingAdmissionPolicy 'gpufleet-"):
			wrong = append(wrong, fmt.Sprintf("%s: refused without the policy's message: %v", c.Name, err))
		}
	}
	return wrong, admitted, refused
}

// TestAdmission: the API server's ValidatingAdmissionPolicy plugin admits
// every class's example workload and its pods in every namespace of each
// of its tenants, and refuses every hostile pod and workload, with the
// policy's message.
func TestAdmission(t *testing.T) {
	var admittedAll, refusedAll int
	defer func() { t.Logf("in all: %d admitted, %d refused", admittedAll, refusedAll) }()
	for _, f := range fleets(t) {
		t.Run(f.name, func(t *testing.T) {
			wrong, admitted, refused := judge(t, f, f.tree)
			admittedAll, refusedAll = admittedAll+admitted, refusedAll+refused
			t.Logf("%s: %d admitted, %d refused, %d disagreements", f.name, admitted, refused, len(wrong))
			for _, w := range wrong {
				t.Error(w)
			}
		})
	}
}

// TestAdmissionCatchesABug: the same policies with a rule dropped admit
// hostile pods, and the differential says so.
func TestAdmissionCatchesABug(t *testing.T) {
	f := fleets(t)[0]
	for _, rule := range []string{"badTolerations", "affinity", "priorityClassName", "queue-name", "badResources"} {
		t.Run(rule, func(t *testing.T) {
			tr := *f.tree
			tr.Policies = nil
			for _, p := range f.tree.Policies {
				p = p.DeepCopy()
				p.Spec.Validations = slices.DeleteFunc(p.Spec.Validations, func(v admissionv1.Validation) bool {
					return strings.Contains(v.Expression, rule)
				})
				tr.Policies = append(tr.Policies, p)
			}
			wrong, _, _ := judge(t, f, &tr)
			if len(wrong) == 0 {
				t.Fatalf("the policies without their %s rule admit nothing hostile", rule)
			}
			t.Logf("without the %s rule: %d hostile objects admitted, e.g. %s", rule, len(wrong), wrong[0])
		})
	}
}

// TestUnownedCatchesABug: without the unowned namespaces' policy, pods in
// a namespace no tenant owns, or in a tenant's stripped of its label,
// reach the pools; with its binding's exemptions dropped, the agents'
// namespaces are refused.
func TestUnownedCatchesABug(t *testing.T) {
	f := fleets(t)[0]
	t.Run("no policy", func(t *testing.T) {
		tr := *f.tree
		tr.Policies = slices.DeleteFunc(slices.Clone(f.tree.Policies), func(p *admissionv1.ValidatingAdmissionPolicy) bool { return p.Name == "gpufleet-unowned" })
		wrong, _, _ := judge(t, f, &tr)
		if !slices.ContainsFunc(wrong, func(w string) bool { return strings.Contains(w, "stripped") }) ||
			!slices.ContainsFunc(wrong, func(w string) bool { return strings.HasPrefix(w, "unowned: a pod tolerating everything") }) {
			t.Fatalf("without the unowned policy, the hostile pods outside tenants' namespaces were not all admitted: %q", wrong)
		}
		t.Logf("without the unowned policy: %d hostile pods admitted, e.g. %s", len(wrong), wrong[0])
	})
	t.Run("no exemptions", func(t *testing.T) {
		tr := *f.tree
		tr.Bindings = nil
		for _, b := range f.tree.Bindings {
			b = b.DeepCopy()
			if b.Name == "gpufleet-unowned" {
				b.Spec.MatchResources.NamespaceSelector.MatchExpressions = b.Spec.MatchResources.NamespaceSelector.MatchExpressions[:1]
			}
			tr.Bindings = append(tr.Bindings, b)
		}
		wrong, _, _ := judge(t, f, &tr)
		if !slices.ContainsFunc(wrong, func(w string) bool { return strings.HasPrefix(w, "exempt kube-system") }) {
			t.Fatalf("without the exemptions, kube-system's agents were not refused: %q", wrong)
		}
		t.Logf("without the exemptions: %d pods refused, e.g. %s", len(wrong), wrong[0])
	})
}

// TestForgedOwnerCatchesABug: policies that take any controller
// ownerReference for a queued workload's admission, whoever writes it,
// admit the tenant's forged pods and workloads; policies that take it
// only from the controllers refuse Kueue's update of a pod it gates.
func TestForgedOwnerCatchesABug(t *testing.T) {
	f := fleets(t)[0]
	for _, bug := range []struct{ name, from, to, want string }{
		{"any writer", "request.userInfo.username in [", "true || '' in [", "forged"},
		{"no updates", "|| oldObject != null", "|| false && oldObject != null", "updated by Kueue: refused"},
	} {
		t.Run(bug.name, func(t *testing.T) {
			tr := *f.tree
			tr.Policies = nil
			for _, p := range f.tree.Policies {
				p = p.DeepCopy()
				for i, v := range p.Spec.Validations {
					p.Spec.Validations[i].Expression = strings.Replace(v.Expression, bug.from, bug.to, 1)
				}
				tr.Policies = append(tr.Policies, p)
			}
			wrong, _, _ := judge(t, f, &tr)
			if !slices.ContainsFunc(wrong, func(w string) bool { return strings.Contains(w, bug.want) }) {
				t.Fatalf("with the bug (%s), no case %q disagrees: %q", bug.name, bug.want, wrong)
			}
			t.Logf("with the bug (%s): %d disagreements, e.g. %s", bug.name, len(wrong), wrong[0])
		})
	}
}

// TestMLPolicyCatchesABug: without the ML kinds' policy, a queued class's
// JobSet, RayJob or TrainJob without its queue label is admitted, and
// Kueue never sees it (its Jobs and pods pass as their controllers').
func TestMLPolicyCatchesABug(t *testing.T) {
	i := slices.IndexFunc(fleets(t), func(f fleet) bool { return f.name == "kinds" })
	f := fleets(t)[i]
	tr := *f.tree
	tr.Policies = slices.DeleteFunc(slices.Clone(f.tree.Policies), func(p *admissionv1.ValidatingAdmissionPolicy) bool { return p.Name == "gpufleet-ml-workloads" })
	wrong, _, _ := judge(t, f, &tr)
	if !slices.ContainsFunc(wrong, func(w string) bool {
		return strings.Contains(w, "without its queue in") && strings.HasSuffix(w, ": admitted")
	}) {
		t.Fatalf("without the ML kinds' policy, no unqueued ML workload was admitted: %q", wrong)
	}
	t.Logf("without the ML kinds' policy: %d hostile objects admitted, e.g. %s", len(wrong), wrong[0])
}
