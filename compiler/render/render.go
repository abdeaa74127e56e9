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
	"github.com/gpufleet/gpufleet/internal/par"
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
	// queued are the files emit has listed in tree but not yet encoded.
	queued []queuedFile
}

type queuedFile struct {
	path string
	objs []any
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
	r.flush()
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
	r.flush()
	return r.err
}

// emit lists a file of objs in the tree and queues its encoding for
// flush. The objects must not change afterwards.
func (r *renderer) emit(p string, objs ...any) {
	if r.err != nil {
		return
	}
	p = path.Clean(p)
	r.tree[p] = nil
	r.queued = append(r.queued, queuedFile{p, objs})
}

// flush encodes the queued files on every CPU: YAML encoding is most of
// what rendering a big fleet costs, and the files are independent. The
// error reported is the first in emit order, whatever the scheduling.
func (r *renderer) flush() {
	q := r.queued
	r.queued = nil
	out := make([][]byte, len(q))
	errs := make([]error, len(q))
	par.Each(len(q), func(i int) { out[i], errs[i] = Marshal(q[i].objs...) })
	for i, f := range q {
		if errs[i] != nil {
			if r.err == nil {
				r.err = errs[i]
			}
			delete(r.tree, f.path)
			continue
		}
		r.tree[f.path] = out[i]
	}
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
