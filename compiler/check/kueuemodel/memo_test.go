package kueuemodel_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// TestKueueMemo holds the Kueue checks' memo to what it memoises, for
// every queued class in every queue that queues it: kueue.Admits on each
// of the queue's flavors, and Request in the queue's namespace. The
// fleets are the examples and generated ones with taints, tolerations and
// affinity that tell classes and flavors apart, and tenant defaults that
// differ. They must have a flavor that admits one class and not another,
// a class admitted to one flavor and not another, and a class whose
// request differs between namespaces: a memo keyed by flavor alone, by
// class alone, or by class alone for requests, would then answer wrong.
func TestKueueMemo(t *testing.T) {
	paths, err := filepath.Glob("../../../fleets/*")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example fleets: %v", err)
	}
	dir := t.TempDir()
	for seed := uint64(1); seed <= 6; seed++ {
		f := fleetgen.Generate(seed, fleetgen.S, []fleetgen.Options{{Tricky: true}, {Queues: true}, {Full: true}}[seed%3])
		i := 0
		for _, name := range spec.Keys(f.Tenants) {
			if i++; i%2 == 0 {
				tn := f.Tenants[name]
				tn.Defaults = spec.Resources{CPU: spec.Quantity(fmt.Sprintf("%dm", 100*i)), Memory: "1Gi"}
				f.Tenants[name] = tn
			}
		}
		i = 0
		for _, name := range spec.Keys(f.Classes) {
			if i++; i%2 == 0 { // the namespace's default fills it in
				c := f.Classes[name]
				c.Resources.CPU = ""
				f.Classes[name] = c
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("gen-%d.json", seed))
		if err := os.WriteFile(p, fleetgen.JSON(f), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	var pairs, flavorSplits, classSplits, requestSplits int
	for _, p := range paths {
		res, err := compiler.Compile([]string{p})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		m, err := kueuemodel.New(res.Typed())
		if err != nil {
			t.Fatal(err)
		}
		cl, err := res.Cluster()
		if err != nil {
			t.Fatal(err)
		}
		queues := compiler.KueueIntent(res.Fleet)
		memo := kueuemodel.NewMemo(m, cl, queues)
		byFlavor := map[string]map[bool]bool{} // flavor → verdicts its classes got
		byClass := map[string]map[bool]bool{}
		requests := map[string]map[string]bool{} // class → its requests
		for _, q := range queues {
			for _, name := range q.Classes {
				c := cl.Class(name)
				if c == nil {
					continue
				}
				req, held := memo.Request(m, c, q.Namespace), memo.HeldRequest(name, q.Namespace)
				want := m.ClassRequest(c, q.Namespace)
				if !held || !equality.Semantic.DeepEqual(req, want) {
					t.Fatalf("%s: class %s in namespace %s: memo's request %v (held %v), Request %v", p, name, q.Namespace, req, held, want)
				}
				add(requests, name, listString(want))
				for _, rg := range m.Queues[q.ClusterQueue].Spec.ResourceGroups {
					for _, f := range rg.Flavors {
						ok, reason := memo.Admitter(m, c)(f.Name)
						held := memo.HeldAdmits(name, f.Name)
						wantOK, wantReason := kueue.Admits(f.Name, m.Flavors[f.Name], c.Pod)
						if !held || ok != wantOK || reason != wantReason {
							t.Fatalf("%s: class %s, flavor %s: memo says %v %q (held %v), Admits %v %q", p, name, f.Name, ok, reason, held, wantOK, wantReason)
						}
						pairs++
						add(byFlavor, f.Name, ok)
						add(byClass, name, ok)
					}
				}
			}
		}
		flavorSplits += splits(byFlavor)
		classSplits += splits(byClass)
		requestSplits += splits(requests)
	}
	t.Logf("%d pairs; %d flavors admit some classes and not others, %d classes are admitted to some flavors and not others, %d classes' requests differ between namespaces", pairs, flavorSplits, classSplits, requestSplits)
	if flavorSplits == 0 || classSplits == 0 || requestSplits == 0 {
		t.Fatal("the fleets no longer tell a wrong memo key apart")
	}
}

func add[V comparable](m map[string]map[V]bool, k string, v V) {
	if m[k] == nil {
		m[k] = map[V]bool{}
	}
	m[k][v] = true
}

// splits counts the keys with more than one value.
func splits[V comparable](m map[string]map[V]bool) int {
	n := 0
	for _, vs := range m {
		if len(vs) > 1 {
			n++
		}
	}
	return n
}

func listString(rl corev1.ResourceList) string {
	var out []string
	for k, v := range rl {
		out = append(out, string(k)+"="+v.String())
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}
