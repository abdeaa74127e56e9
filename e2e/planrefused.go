package e2e

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/plan"
	"github.com/gpufleet/gpufleet/compiler/write"
)

// planEdit is a spec edit of an example fleet whose plan has a refusal.
type planEdit struct {
	name, fleet, old, new string
}

// planEdits: a PriorityClass's value raised (ValidatePriorityClassUpdate:
// "may not be changed in an update"), and a DRA class's claim changed,
// which changes its ResourceClaimTemplate's spec
// (ValidateResourceClaimTemplateUpdate: "field is immutable"). Each
// changes other objects too (the DRA class's quotas), which the API server
// takes.
var planEdits = []planEdit{
	{"PriorityClass value raised", "platform", `"inference-critical": {value: 1000000,`, `"inference-critical": {value: 2000000,`},
	{"ResourceClaimTemplate spec changed", "dra", `gpu: {count: 4, products: ["H100"], api: "dra"}`, `gpu: {count: 2, products: ["H100"], api: "dra"}`},
}

// appliedByPlanCheck says which of a tree's objects the refusal check
// applies: what `kustomize build` of the tree gives a GitOps controller,
// less the objects a running controller acts on (workloads, and Kueue's
// and Karpenter's objects, whose controllers add finalizers): plan names
// a workload's change as its class's restart, not as a refusal. An object
// of a kind the API server does not serve (Flux's, Argo CD's) is skipped.
func appliedByPlanCheck(u *unstructured.Unstructured) bool {
	switch g := u.GroupVersionKind().Group; {
	case g == "apps" || g == "batch" || g == "kueue.x-k8s.io" || strings.HasPrefix(g, "karpenter."):
		return false
	}
	return true
}

// refusalKey names an object as plan's objects name it: its kind, and its
// name, or namespace/name.
func refusalKey(kind, namespace, name string) string {
	if namespace != "" {
		name = namespace + "/" + name
	}
	return kind + " " + name
}

// planRefusedKeys are the objects p says the API server refuses.
func planRefusedKeys(p *plan.Plan) []string {
	var out []string
	for _, o := range p.Objects {
		if o.Action == plan.Refuse {
			out = append(out, refusalKey(o.Kind, "", o.Name))
		}
	}
	slices.Sort(out)
	return out
}

// refusalsDiffer says how two sets of refused objects differ; "" if not.
func refusalsDiffer(api, planned []string) string {
	var d []string
	for _, k := range api {
		if !slices.Contains(planned, k) {
			d = append(d, "the API server refused "+k+", which plan does not call refused")
		}
	}
	for _, k := range planned {
		if !slices.Contains(api, k) {
			d = append(d, "plan calls "+k+" refused, which the API server took")
		}
	}
	return strings.Join(d, "; ")
}

// testPlanRefusals applies the tree of each example fleet, then the tree
// of its edited spec, by server-side apply as a GitOps controller does,
// and holds the objects the API server refuses to plan's refused list for
// that edit against the first tree committed. It runs on a shard's
// control plane after its fleets, and leaves nothing behind.
func testPlanRefusals(t *testing.T, ctx context.Context, a *Applier, repo string) {
	dir := t.TempDir()
	applied, refusedAll, agreed := 0, 0, 0
	for _, e := range planEdits {
		t.Run("plan refusals: "+e.name, func(t *testing.T) {
			before, err := compiler.Compile([]string{filepath.Join(repo, "fleets", e.fleet)})
			if err != nil {
				t.Fatal(err)
			}
			after, err := compiler.Compile([]string{editedFleet(t, filepath.Join(repo, "fleets", e.fleet), filepath.Join(dir, e.fleet), e.old, e.new)})
			if err != nil {
				t.Fatal(err)
			}
			committed := filepath.Join(dir, e.fleet+"-tree")
			if _, err := write.Tree(committed, before.Tree); err != nil {
				t.Fatal(err)
			}
			p, err := compiler.Plan(after, committed)
			if err != nil {
				t.Fatal(err)
			}
			planned := planRefusedKeys(p)
			if len(planned) == 0 {
				t.Fatalf("plan calls nothing refused: the edit proves nothing")
			}
			var objs []*unstructured.Unstructured
			defer func() { deleteApplied(t, ctx, a, objs) }()
			apply := func(res *compiler.Result, refused map[string]string) {
				all, err := kustomized(res)
				if err != nil {
					t.Fatal(err)
				}
				applyOrder(all)
				for _, o := range all {
					if !appliedByPlanCheck(o) {
						continue
					}
					if _, _, err := a.resource(o); err != nil {
						continue // a kind the API server does not serve
					}
					_, err := a.Apply(ctx, o)
					if refused == nil && apierrors.IsInvalid(err) {
						// Left by a fleet before, unlike the first tree:
						// made again, as the way out plan gives says.
						if err = a.Delete(ctx, o, 30*time.Second); err == nil {
							_, err = a.Apply(ctx, o)
						}
					}
					switch {
					case err == nil:
						applied++
						if !slices.ContainsFunc(objs, func(u *unstructured.Unstructured) bool { return id(u) == id(o) }) {
							objs = append(objs, o)
						}
					case refused != nil && apierrors.IsInvalid(err):
						refused[refusalKey(o.GetKind(), o.GetNamespace(), o.GetName())] = err.Error()
					default:
						t.Errorf("the API server refused %s: %v", id(o), err)
					}
				}
			}
			apply(before, nil)
			refused := map[string]string{}
			apply(after, refused)
			api := slices.Sorted(maps.Keys(refused))
			for _, k := range api {
				t.Logf("refused %s: %s", k, refused[k])
			}
			if d := refusalsDiffer(api, planned); d != "" {
				t.Errorf("%s", d)
			} else {
				agreed++
			}
			refusedAll += len(api)
			// The comparison can fail: a plan that forgot the refusals of
			// the edit's kind disagrees.
			kind, _, _ := strings.Cut(planned[0], " ")
			forgot := slices.DeleteFunc(slices.Clone(planned), func(k string) bool { return strings.HasPrefix(k, kind+" ") })
			if refusalsDiffer(api, forgot) == "" {
				t.Errorf("a plan that forgot the %s refusals agrees with the API server", kind)
			}
		})
	}
	t.Logf("plan refusals: %d edits, %d objects applied, %d refused by the API server, plan agreeing on %d edits (a plan forgetting them caught on each)", len(planEdits), applied, refusedAll, agreed)
}

// lightestShard says this shard (E2E_SHARD "i/n"; every shard when empty)
// is the one shard assigns the least work, by the fleets' weights (the
// first of equals), so that the refusal check adds to no shard's end but
// the earliest.
func lightestShard(fleets []fleetCase, spec string) bool {
	if spec == "" {
		return true
	}
	_, b, _ := strings.Cut(spec, "/")
	n, err := strconv.Atoi(b)
	if err != nil || n < 1 {
		return false
	}
	least, mine := -1, -1
	for i := range n {
		got, err := shard(fleets, fmt.Sprintf("%d/%d", i, n))
		if err != nil {
			continue
		}
		w := 0
		for _, f := range got {
			w += weight(f)
		}
		if least < 0 || w < least {
			least, mine = w, i
		}
	}
	return spec == fmt.Sprintf("%d/%d", mine, n)
}

// editedFleet copies the fleet directory src to dst with old replaced by
// new in its fleet.cue, and returns dst.
func editedFleet(t *testing.T, src, dst, old, new string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(src, "*.cue"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no spec files (%v)", src, err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(f) == "fleet.cue" {
			if !strings.Contains(string(b), old) {
				t.Fatalf("%s no longer holds %q: the edit needs updating", f, old)
			}
			b = []byte(strings.Replace(string(b), old, new, 1))
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// deleteApplied deletes what the check applied, namespaces at once.
func deleteApplied(t *testing.T, ctx context.Context, a *Applier, objs []*unstructured.Unstructured) {
	ours := map[string]bool{}
	for _, o := range objs {
		if o.GetKind() == "Namespace" {
			ours[o.GetName()] = true
		}
	}
	var waits []func(time.Duration) error
	for i := len(objs) - 1; i >= 0; i-- {
		o := objs[i]
		if ours[o.GetNamespace()] {
			continue // its namespace's deletion deletes it
		}
		w, err := a.StartDelete(ctx, o)
		if err != nil {
			t.Errorf("cleanup: %s: %v", id(o), err)
			continue
		}
		waits = append(waits, w)
	}
	for _, w := range waits {
		if err := w(60 * time.Second); err != nil {
			t.Errorf("cleanup: %v", fmt.Errorf("not deleted: %w", err))
		}
	}
}
