package compiler_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	kusttypes "sigs.k8s.io/kustomize/api/types"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/argocd"
	"github.com/gpufleet/gpufleet/compiler/wire/flux"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// TestTypedRoundTrip proves that the checker loses nothing by reading
// render's objects instead of parsing the YAML render wrote
// (tree.Objects): every document of every file with objects decodes,
// strictly, into a value semantically equal to its object (equal as the
// API server compares objects: quantities by value, a nil slice or map
// as an empty one). It runs after the whole pipeline, so a check that
// changed one of render's objects fails it too.
func TestTypedRoundTrip(t *testing.T) {
	specs := exampleFleets(t)
	dir := t.TempDir()
	for _, g := range []struct {
		seed uint64
		size fleetgen.Size
		opts fleetgen.Options
	}{
		{1, fleetgen.S, fleetgen.Options{Buildable: true}},
		{2, fleetgen.M, fleetgen.Options{Buildable: true}},
		{7, fleetgen.M, fleetgen.Options{Tricky: true}},
		{3, fleetgen.S, fleetgen.Options{Full: true}},
	} {
		p := filepath.Join(dir, fmt.Sprintf("gen-%s-%d.json", g.size.Name, g.seed))
		if err := os.WriteFile(p, fleetgen.JSON(fleetgen.Generate(g.seed, g.size, g.opts)), 0o644); err != nil {
			t.Fatal(err)
		}
		specs = append(specs, p)
	}
	for _, spec := range specs {
		t.Run(filepath.Base(spec), func(t *testing.T) {
			res, err := compiler.Compile([]string{spec})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Objects) == 0 {
				t.Fatal("render kept no objects")
			}
			for _, p := range sortedPaths(res.Objects) {
				if _, ok := res.Tree[p]; !ok {
					t.Errorf("%s: objects for a file not in the tree", p)
				}
			}
			for _, m := range roundTrip(res.Typed()) {
				t.Error(m)
			}
		})
	}
}

// TestTypedRoundTripFails shows the comparison catches an object that
// differs from its bytes: each ClusterQueue of a fleet changed after it
// was encoded, once in a string and once in a quota's quantity.
func TestTypedRoundTripFails(t *testing.T) {
	res, err := compiler.Compile([]string{"../fleets/llm-serving"})
	if err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(*kueue.ClusterQueue){
		"queueing strategy": func(cq *kueue.ClusterQueue) { cq.Spec.QueueingStrategy = "changed" },
		"nominal quota": func(cq *kueue.ClusterQueue) {
			rgs := slices.Clone(cq.Spec.ResourceGroups)
			fs := slices.Clone(rgs[0].Flavors)
			rs := slices.Clone(fs[0].Resources)
			rs[0].NominalQuota.Add(resource.MustParse("1m"))
			fs[0].Resources, rgs[0].Flavors, cq.Spec.ResourceGroups = rs, fs, rgs
		},
	} {
		t.Run(name, func(t *testing.T) {
			objs := maps.Clone(res.Objects)
			var cqs []any
			for _, o := range objs[tree.KueueQueuesPath] {
				cq, ok := tree.As[kueue.ClusterQueue](o)
				if !ok {
					t.Fatalf("a %T among the ClusterQueues", o)
				}
				change(&cq)
				cqs = append(cqs, &cq)
			}
			if len(cqs) == 0 {
				t.Fatal("llm-serving has no ClusterQueues")
			}
			objs[tree.KueueQueuesPath] = cqs
			if got := roundTrip(tree.Typed{Tree: res.Tree, Objects: objs}); len(got) != len(cqs) {
				t.Fatalf("got %d mismatches, want %d (one per ClusterQueue): %v", len(got), len(cqs), got)
			}
			if got := roundTrip(res.Typed()); len(got) != 0 {
				t.Fatalf("the fleet's own objects changed: %v", got)
			}
		})
	}
}

// roundTrip lists every document whose bytes do not decode to its object.
func roundTrip(t tree.Typed) []string {
	var bad []string
	for _, p := range sortedPaths(t.Objects) {
		objs := t.Objects[p]
		docs := tree.Docs(t.Tree[p])
		if len(docs) != len(objs) {
			bad = append(bad, fmt.Sprintf("%s: %d documents, %d objects", p, len(docs), len(objs)))
			continue
		}
		for i, o := range objs {
			want := reflect.ValueOf(o)
			if want.Kind() == reflect.Pointer {
				want = want.Elem()
			}
			got := reflect.New(want.Type())
			if err := tree.Decode(docs[i], got.Interface()); err != nil {
				bad = append(bad, fmt.Sprintf("%s: document %d: %v", p, i, err))
				continue
			}
			if !equal(want.Interface(), got.Elem().Interface()) {
				bad = append(bad, fmt.Sprintf("%s: document %d (%T) decodes to something else than its object", p, i, o))
			}
		}
	}
	return bad
}

// equal compares as the API server does. The objects of files no stage
// after render reads are compared by their JSON instead: kustomize's
// types (unexported fields, which Semantic cannot walk), the policy
// patches (maps holding typed values, which decode as maps) and the GitOps
// objects carrying chart values (the same).
func equal(a, b any) (eq bool) {
	switch a.(type) {
	case map[string]any, argocd.Application, flux.HelmRelease, flux.HelmRepository, kusttypes.Kustomization:
		return reflect.DeepEqual(asJSON(a), asJSON(b))
	}
	return apiequality.Semantic.DeepEqual(a, b)
}

// asJSON is v as encoding/json's maps, slices and float64s.
func asJSON(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return err.Error()
	}
	return out
}

func sortedPaths(objs tree.Objects) []string {
	ps := make([]string, 0, len(objs))
	for p := range objs {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}
