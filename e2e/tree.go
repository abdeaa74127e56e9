package e2e

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/gpufleet/gpufleet/compiler"
)

// treeObjects is what a GitOps controller applies from the compiled tree:
// `kustomize build` of its root, plus each class's example workload in the
// namespace of the first tenant that uses the class.
func treeObjects(res *compiler.Result) ([]*unstructured.Unstructured, error) {
	objs, err := kustomized(res)
	if err != nil {
		return nil, err
	}
	for _, p := range res.Tree.Paths() {
		if !strings.HasPrefix(p, "classes/") || path.Base(p) != "example.yaml" {
			continue
		}
		class := path.Base(path.Dir(p))
		ex, err := decodeAll(res.Tree[p])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		for _, o := range ex {
			o.SetNamespace(namespaceOf(res, class))
			objs = append(objs, o)
		}
	}
	applyOrder(objs)
	return objs, nil
}

// kustomized is `kustomize build` of the tree's root.
func kustomized(res *compiler.Result) ([]*unstructured.Unstructured, error) {
	fs := filesys.MakeFsInMemory()
	for p, b := range res.Tree {
		if err := fs.WriteFile(path.Join("/tree", p), b); err != nil {
			return nil, err
		}
	}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/tree")
	if err != nil {
		return nil, fmt.Errorf("kustomize build: %w", err)
	}
	var objs []*unstructured.Unstructured
	for _, r := range m.Resources() {
		mp, err := r.Map()
		if err != nil {
			return nil, err
		}
		objs = append(objs, &unstructured.Unstructured{Object: mp})
	}
	return objs, nil
}

// namespaceOf is where the class's pods run: the first namespace of the
// first tenant (by name) allowed the class, or "default".
func namespaceOf(res *compiler.Result, class string) string {
	for _, t := range res.Fleet.Tenants {
		if slices.Contains(t.Spec.Classes, class) && len(t.Spec.Namespaces) > 0 {
			return t.Spec.Namespaces[0]
		}
	}
	return "default"
}

// tenantOf is the tenant whose namespace namespaceOf picked.
func tenantOf(res *compiler.Result, class string) string {
	for _, t := range res.Fleet.Tenants {
		if slices.Contains(t.Spec.Classes, class) && len(t.Spec.Namespaces) > 0 {
			return t.Name
		}
	}
	return ""
}
