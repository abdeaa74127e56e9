// Package render turns derived policy into the output tree: typed objects
// (k8s.io/api, kustomize's own types, and our eksctl types) serialised as
// YAML in a stable order.
package render

import (
	"path"
	"sort"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/derive"
)

// Tree is the output: slash-separated paths relative to the output root.
type Tree map[string][]byte

// Paths returns the tree's paths, sorted.
func (t Tree) Paths() []string {
	ps := make([]string, 0, len(t))
	for p := range t {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

type renderer struct {
	d    *derive.Fleet
	tree Tree
	err  error
}

// Render produces the whole tree for a derived fleet.
func Render(d *derive.Fleet) (Tree, error) {
	r := &renderer{d: d, tree: Tree{}}
	r.cluster()
	r.tenants()
	r.classes()
	r.nodegroups()
	r.terraform()
	r.karpenter()
	r.root()
	if r.err != nil {
		return nil, r.err
	}
	return r.tree, nil
}

// Kueue adds the Kueue objects, once DeriveQueues has run.
func Kueue(tree Tree, d *derive.Fleet) error {
	r := &renderer{d: d, tree: tree}
	r.kueue()
	for _, t := range d.Tenants {
		r.emit(path.Join("tenants", t.Name, "localqueues.yaml"), localQueues(t, map[string]string{derive.LabelTenant: t.Name})...)
	}
	return r.err
}

// emit marshals objs into one file; the first error sticks.
func (r *renderer) emit(p string, objs ...any) {
	if r.err != nil {
		return
	}
	b, err := Marshal(objs...)
	if err != nil {
		r.err = err
		return
	}
	r.tree[path.Clean(p)] = b
}

// meta is the ObjectMeta every generated object carries.
func meta(name, namespace string, extra map[string]string) metav1.ObjectMeta {
	labels := map[string]string{derive.LabelManagedBy: derive.ManagedByValue}
	for k, v := range extra {
		labels[k] = v
	}
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels}
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
