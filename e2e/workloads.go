package e2e

import (
	"fmt"
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/templates"
)

// workloadName is the user workload's name for a class: its own, so that
// neither the tree's example of the same class nor Kueue's memory of that
// example's Workload meets it, and short enough for the labels the
// controllers derive from it (a StatefulSet's controller-revision-hash
// label is its name plus a hash, within 63 characters).
func workloadName(class string) string {
	return strings.TrimSuffix(class[:min(len(class), 40)], "-") + "-app"
}

// userWorkload is what a user of the class writes and builds, as the
// README's tour says (step 4): a plain workload of the class's kind from templates/, with
// its own name and selector, labelled with the class, its container named
// as the class says, and the replicas, parallelism and completions of the
// class's example (a StatefulSet with the example's headless Service,
// renamed with it); and a kustomization that includes the class's
// Component from the compiled tree. It returns `kustomize build` of that,
// in ns.
func userWorkload(res *compiler.Result, c *sched.Class, name, ns string) ([]*unstructured.Unstructured, error) {
	d := res.Fleet.Class(c.Name)
	skel, err := templates.ForKind(d.Spec.Kind)
	if err != nil {
		return nil, err
	}
	objs, err := decodeAll(skel)
	if err != nil || len(objs) != 1 {
		return nil, fmt.Errorf("templates for %s: %d objects, %v", d.Spec.Kind, len(objs), err)
	}
	w := objs[0]
	example, err := decodeAll(res.Tree[tree.ClassExample(c.Name)])
	if err != nil {
		return nil, err
	}
	docs := []*unstructured.Unstructured{w}
	for _, ex := range example {
		switch ex.GetKind() {
		case d.Spec.Kind:
			for _, f := range []string{"replicas", "parallelism", "completions"} {
				if v, ok, _ := unstructured.NestedFieldCopy(ex.Object, "spec", f); ok {
					if err := unstructured.SetNestedField(w.Object, v, "spec", f); err != nil {
						return nil, err
					}
				}
			}
		case "Service":
			svc := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Service",
				"metadata": map[string]any{"name": name, "namespace": ns}, "spec": ex.Object["spec"]}}
			docs = append(docs, svc)
		}
	}
	w.SetName(name)
	w.SetNamespace(ns)
	w.SetLabels(map[string]string{keys.LabelClass: c.Name})
	// The pods' own label: a user's app label, and how the harness lists them.
	own := map[string]any{runLabel: name}
	if d.Spec.Kind != keys.KindJob {
		if err := unstructured.SetNestedMap(w.Object, map[string]any{"matchLabels": own}, "spec", "selector"); err != nil {
			return nil, err
		}
	}
	if d.Spec.Kind == keys.KindStatefulSet {
		if err := unstructured.SetNestedField(w.Object, name, "spec", "serviceName"); err != nil {
			return nil, err
		}
	}
	if err := unstructured.SetNestedMap(w.Object, own, "spec", "template", "metadata", "labels"); err != nil {
		return nil, err
	}
	ctrs, _, _ := unstructured.NestedSlice(w.Object, "spec", "template", "spec", "containers")
	if d.Spec.Container != "" && len(ctrs) > 0 {
		ctrs[0].(map[string]any)["name"] = d.Spec.Container
		if err := unstructured.SetNestedSlice(w.Object, ctrs, "spec", "template", "spec", "containers"); err != nil {
			return nil, err
		}
	}

	fs := filesys.MakeFsInMemory()
	for p, b := range res.Tree {
		if err := fs.WriteFile(path.Join("/tree", p), b); err != nil {
			return nil, err
		}
	}
	var yml []string
	for _, o := range docs {
		b, err := o.MarshalJSON()
		if err != nil {
			return nil, err
		}
		yml = append(yml, string(b))
	}
	app := "/tree/" + name
	files := map[string]string{
		"workload.yaml":      strings.Join(yml, "\n---\n"),
		"kustomization.yaml": "resources: [workload.yaml]\ncomponents: [../classes/" + c.Name + "]\n",
	}
	for f, b := range files {
		if err := fs.WriteFile(path.Join(app, f), []byte(b)); err != nil {
			return nil, err
		}
	}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, app)
	if err != nil {
		return nil, fmt.Errorf("kustomize build of %s with the Component of %s: %w", d.Spec.Kind, c.Name, err)
	}
	var out []*unstructured.Unstructured
	for _, r := range m.Resources() {
		mp, err := r.Map()
		if err != nil {
			return nil, err
		}
		out = append(out, &unstructured.Unstructured{Object: mp})
	}
	applyOrder(out)
	return out, nil
}
