// Package render turns derived policy into the output tree: typed objects
// (k8s.io/api, kustomize's own types, and the wire types of compiler/wire)
// encoded by compiler/encode. Node-group files come from the cloud's
// provisioners (compiler/nodegroup). Everything that does not need the placement
// checker's verdicts is rendered by Render; the ClusterQueues, which do,
// by Queues once the checker has run.
package render

import (
	"strconv"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/encode"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodegroup"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

type renderer struct {
	d   *derive.Fleet
	out *encode.Batch
	err error
}

// Render produces the tree for a derived fleet, all but the ClusterQueues,
// with the objects its YAML files were encoded from.
func Render(d *derive.Fleet) (tree.Typed, error) {
	r := &renderer{d: d, out: encode.NewBatch(tree.Typed{Tree: tree.Tree{}})}
	r.cluster()
	r.tenants()
	r.classes()
	r.kueue()
	var applied []string
	for _, p := range nodegroup.All[d.Cloud.Provider()] {
		applied = append(applied, p.Render(d, r.out)...)
	}
	r.root(applied)
	if err := r.flush(); err != nil {
		return tree.Typed{}, err
	}
	return r.out.Tree(), nil
}

// Queues adds the ClusterQueues that derive.Queues decided, one per tenant
// in tenant order, and runs meanwhile (the checker of the tree) while
// their file is encoded: their objects are in t before it runs
// (tree.Objects), and a checker reads nothing else of them, while the
// bytes of one file of every tenant's queue are one CPU's work on a big
// fleet. They are encoded into a tree of their own, so that t is only read
// meanwhile, and added to t after. Queues's own error comes first.
func Queues(t tree.Typed, d *derive.Fleet, queues []*derive.Queue, meanwhile func() error) error {
	var objs []any
	for i, tn := range d.Tenants {
		if tn.HasClusterQueue() {
			objs = append(objs, clusterQueue(tn, queues[i]))
		}
	}
	if len(objs) == 0 {
		return meanwhile()
	}
	if t.Objects == nil { // a checker would read the bytes
		b := encode.NewBatch(t)
		b.YAML(tree.KueueQueuesPath, objs...)
		if err := b.Flush(); err != nil {
			return err
		}
		return meanwhile()
	}
	own := tree.Typed{Tree: tree.Tree{}, Objects: tree.Objects{}}
	encoded := make(chan error, 1)
	go func() {
		b := encode.NewBatch(own)
		b.YAML(tree.KueueQueuesPath, objs...)
		encoded <- b.Flush()
	}()
	t.Tree[tree.KueueQueuesPath], t.Objects[tree.KueueQueuesPath] = nil, objs
	err := meanwhile()
	if eerr := <-encoded; eerr != nil {
		delete(t.Tree, tree.KueueQueuesPath)
		delete(t.Objects, tree.KueueQueuesPath)
		return eerr
	}
	t.Tree[tree.KueueQueuesPath] = own.Tree[tree.KueueQueuesPath]
	return err
}

// emit lists a file of objs in the tree; they must not change afterwards.
func (r *renderer) emit(p string, objs ...any) {
	if r.err == nil {
		r.out.YAML(p, objs...)
	}
}

// fail records the first error; nothing is emitted after it.
func (r *renderer) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// flush encodes what was emitted. An error of the renderer's own comes
// before any encoding error.
func (r *renderer) flush() error {
	err := r.out.Flush()
	if r.err != nil {
		return r.err
	}
	return err
}

var meta = keys.ObjectMeta

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
