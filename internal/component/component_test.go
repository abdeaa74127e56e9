package component

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// chart is a workload of kind as a chart writes it, already labelled
// with its class: the class's container beside a sidecar, an init
// container, its own toleration, node selector and volumes, all of which
// a strategic merge keeps and a plain merge would drop.
func chart(kind, group, class, container string) string {
	pod := fmt.Sprintf(`
    metadata: {labels: {app: w, %[1]s: %[2]s}}
    spec:
      nodeSelector: {disk: ssd}
      tolerations: [{key: stale, operator: Exists}]
      initContainers: [{name: init, image: busybox}]
      containers:
      - {name: sidecar, image: envoy, resources: {requests: {cpu: 100m}}}
      - {name: %[3]s, image: vllm, args: [--model, m], ports: [{containerPort: 8000}], resources: {limits: {cpu: "2"}}}
      volumes: [{name: cache, emptyDir: {}}]`, keys.LabelClass, class, container)
	head := fmt.Sprintf("apiVersion: %s/v1\nkind: %s\nmetadata: {name: w-%s, labels: {%s: %s}}\nspec:\n", group, kind, strings.ToLower(kind), keys.LabelClass, class)
	switch kind {
	case keys.KindJob:
		return head + "  completions: 3\n  template:" + pod
	default:
		return head + "  replicas: 12345678901234\n  selector: {matchLabels: {app: w}}\n  template:" + pod
	}
}

// cases are every class of every example fleet and of generated ones:
// the tree, the class, and the manifests its Component is applied to.
type testCase struct {
	name, class string
	tree        map[string][]byte
	manifests   string
}

func cases(t *testing.T) []testCase {
	t.Helper()
	_, dirs, err := testfleet.Examples("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for seed := uint64(1); seed <= 6; seed++ {
		for _, o := range []fleetgen.Options{{Full: true}, {Kinds: true}} {
			p := filepath.Join(tmp, fmt.Sprintf("gen-%d-%v.json", seed, o.Kinds))
			if err := os.WriteFile(p, fleetgen.JSON(fleetgen.Generate(seed, fleetgen.S, o)), 0o644); err != nil {
				t.Fatal(err)
			}
			dirs = append(dirs, p)
		}
	}
	var out []testCase
	for _, d := range dirs {
		res, err := compiler.Compile([]string{d})
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		for _, c := range res.Fleet.Classes {
			ex := string(res.Tree[path.Join(tree.ClassesDir, c.Name, "example.yaml")])
			docs := []string{ex}
			if !c.Spec.HasRoles() {
				ctr := c.Spec.Container
				if ctr == "" {
					ctr = "main"
				}
				docs = append(docs, chart(keys.KindDeployment, "apps", c.Name, ctr),
					chart(keys.KindStatefulSet, "apps", c.Name, ctr), chart(keys.KindJob, "batch", c.Name, ctr))
			}
			docs = append(docs, "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80}]}\n")
			out = append(out, testCase{filepath.Base(d) + "/" + c.Name, c.Name, res.Tree, strings.Join(docs, "\n---\n")})
		}
	}
	return out
}

func kustomize(tc testCase) ([]byte, error) {
	fs := filesys.MakeFsInMemory()
	dir := path.Join(tree.ClassesDir, tc.class)
	for p, b := range tc.tree {
		if strings.HasPrefix(p, dir+"/") {
			if err := fs.WriteFile(path.Join("/tree", p), b); err != nil {
				return nil, err
			}
		}
	}
	_ = fs.WriteFile("/in/m.yaml", []byte(tc.manifests))
	_ = fs.WriteFile("/in/kustomization.yaml", []byte("resources: [m.yaml]\ncomponents: [../tree/"+dir+"]\n"))
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/in")
	if err != nil {
		return nil, err
	}
	return m.AsYaml()
}

func ours(tc testCase) ([]byte, error) {
	return Apply(tc.tree, path.Join(tree.ClassesDir, tc.class), []byte(tc.manifests), Workloads{})
}

// disagreements counts the cases whose manifests differ, document by
// document, from kustomize's build of them.
func disagreements(t *testing.T, cs []testCase) (n int, first string) {
	for _, tc := range cs {
		want, err := kustomize(tc)
		if err != nil {
			t.Fatalf("%s: kustomize: %v", tc.name, err)
		}
		got, err := ours(tc)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(parse(t, want), parse(t, got)) {
			if n++; first == "" {
				first = fmt.Sprintf("%s:\nkustomize:\n%s\nours:\n%s", tc.name, want, got)
			}
		}
	}
	return n, first
}

func parse(t *testing.T, b []byte) []any {
	var out []any
	for _, d := range tree.Docs(b) {
		var v any
		if err := yaml.Unmarshal(d, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// TestAgreesWithKustomize holds Apply to kustomize's own build of the
// same manifests with the same Component, for every class of every
// example fleet and of generated ones, every kind and role included.
func TestAgreesWithKustomize(t *testing.T) {
	cs := cases(t)
	n, first := disagreements(t, cs)
	t.Logf("%d classes' Components applied, %d disagreements with kustomize", len(cs), n)
	if n > 0 {
		t.Fatalf("%d of %d disagree; the first:\n%s", n, len(cs), first)
	}
	if len(cs) < 100 {
		t.Fatalf("only %d cases", len(cs))
	}
}

// TestCatchesAPatchLeftOut: a Component applied with only its first
// patch (a loop that returns early) leaves the StatefulSets and Jobs of
// every plain class unpatched, and the differential sees it.
func TestCatchesAPatchLeftOut(t *testing.T) {
	cs := cases(t)
	defer func(f func(types.Kustomization) []types.Patch) { patchesOf = f }(patchesOf)
	patchesOf = func(k types.Kustomization) []types.Patch { return k.Patches[:1] }
	n, _ := disagreements(t, cs)
	t.Logf("the first patch alone disagrees on %d of %d", n, len(cs))
	if n == 0 {
		t.Fatal("a patch left out went unnoticed")
	}
}

// TestRefusesWhatItDoesNotApply: a Component holding more than patches, a
// kustomization that is not a Component, and a patch file outside it are
// refused, never applied in part.
func TestRefusesWhatItDoesNotApply(t *testing.T) {
	const patch = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: any}\nspec: {replicas: 2}\n"
	manifests := []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec: {replicas: 1}\n")
	for _, tc := range []struct{ name, kustomization, want string }{
		{"more than patches", "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [x.yaml]\n", "more than patches"},
		{"not a Component", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n", `kind "Kustomization"`},
		{"a file outside", "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches: [{path: ../p.yaml, target: {kind: Deployment}}]\n", "not a file of the Component"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string][]byte{"c/kustomization.yaml": []byte(tc.kustomization), "p.yaml": []byte(patch)}
			_, err := Apply(files, "c", manifests, Workloads{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
