// Package component applies a class's kustomize Component to manifests
// with kustomize's own PatchTransformer, configured per patch as
// `kustomize build` configures it for a Component's `patches`
// (sigs.k8s.io/kustomize/api v0.21.2, internal/target/
// kusttarget_configplugin.go, the PatchTransformer entry), on kustomize's
// own ResMap.
//
// It does not link kustomize's build (krusty): krusty's plugin loader
// imports Go's plugin package, which links the whole binary dynamically
// and exports every symbol, for a command that uses no plugin (the binary
// 53 → 72 MB, and 22 MB more resident before any work, in every
// command). TestAgreesWithKustomize holds the result to krusty's.
package component

import (
	"fmt"
	"path"
	"path/filepath"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/kustomize/api/builtins"
	"sigs.k8s.io/kustomize/api/ifc"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"
)

// Workloads chooses the objects that take the class: of Kinds, whose
// labels Select matches (nil: all), labelled Label=Value.
type Workloads struct {
	Kinds        []string
	Select       labels.Selector
	Label, Value string
}

// Apply reads manifests into kustomize's ResMap, labels the workloads w
// chooses, applies the Component in dir (files holds its
// kustomization.yaml and patch files by path) and writes the result as
// kustomize's AsYaml does, in the manifests' order.
func Apply(files map[string][]byte, dir string, manifests []byte, w Workloads) ([]byte, error) {
	var k types.Kustomization
	kb, ok := files[path.Join(dir, "kustomization.yaml")]
	if !ok {
		return nil, fmt.Errorf("%s: no kustomization.yaml", dir)
	}
	if err := yaml.UnmarshalStrict(kb, &k); err != nil {
		return nil, fmt.Errorf("%s/kustomization.yaml: %v", dir, err)
	}
	if k.Kind != types.ComponentKind {
		return nil, fmt.Errorf("%s/kustomization.yaml: kind %q, not %s", dir, k.Kind, types.ComponentKind)
	}
	// Only patches are applied here: a Component that grew anything else
	// would be applied in part, so it is refused instead.
	rest := k
	rest.TypeMeta, rest.Patches = types.TypeMeta{}, nil
	if !reflect.DeepEqual(rest, types.Kustomization{}) {
		return nil, fmt.Errorf("%s/kustomization.yaml: a Component with more than patches, which render-class does not apply", dir)
	}
	dp := provider.NewDefaultDepProvider()
	rf := resmap.NewFactory(dp.GetResourceFactory())
	m, err := rf.NewResMapFromBytes(manifests)
	if err != nil {
		return nil, err
	}
	for _, r := range m.Resources() {
		l := r.GetLabels()
		if slices.Contains(w.Kinds, r.GetKind()) && (w.Select == nil || w.Select.Matches(labels.Set(l))) {
			if l == nil {
				l = map[string]string{}
			}
			l[w.Label] = w.Value
			if err := r.SetLabels(l); err != nil {
				return nil, err
			}
		}
	}
	h := resmap.NewPluginHelpers(loader{files, dir}, dp.GetFieldValidator(), rf, types.DisabledPluginConfig())
	for i, p := range patchesOf(k) {
		c, err := yaml.Marshal(p)
		if err != nil {
			return nil, err
		}
		t := builtins.NewPatchTransformerPlugin()
		if err := t.Config(h, c); err != nil {
			return nil, fmt.Errorf("%s: patch %d: %v", dir, i+1, err)
		}
		if err := t.Transform(m); err != nil {
			return nil, fmt.Errorf("%s: patch %d: %v", dir, i+1, err)
		}
	}
	m.RemoveBuildAnnotations()
	return m.AsYaml()
}

// patchesOf is the Component's patches, in order; a test breaks it.
var patchesOf = func(k types.Kustomization) []types.Patch { return k.Patches }

// loader loads a Component's patch files from the compiled tree, and
// nothing else: no file system, no URL.
type loader struct {
	files map[string][]byte
	root  string
}

var _ ifc.Loader = loader{}

func (l loader) Repo() string   { return "" }
func (l loader) Root() string   { return l.root }
func (l loader) Cleanup() error { return nil }
func (l loader) New(string) (ifc.Loader, error) {
	return nil, fmt.Errorf("a class's Component loads no other kustomization")
}

func (l loader) Load(p string) ([]byte, error) {
	if b, ok := l.files[path.Join(l.root, p)]; ok && filepath.IsLocal(p) {
		return b, nil
	}
	return nil, fmt.Errorf("%s: not a file of the Component", p)
}
