package kueuediff

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

var xl = flag.Bool("xl", false, "TestSplitHoldsAGang also judges the XL buildable fleet (seed 1; a minute or more)")

// TestSplitHoldsAGang asks Kueue's flavor assigner, on an empty cluster,
// to admit one workload of every queued class of every tenant to each
// flavor of its ClusterQueue where the checker proved the class lands, in
// turn (the Job pinned to the flavor's pool),
// over buildable generated fleets: they fund a workload of each class on
// every pool it lands on, and a fifth of their classes have an init
// container naming no memory, half of them sidecars, which get the
// tenant's LimitRange default. A flavor Kueue refuses for quota means
// derive's split reserved less than Kueue counts.
func TestSplitHoldsAGang(t *testing.T) {
	ctx := context.Background()
	crds, err := crdtest.Load(upstream.Kueue, upstream.KueueCRDs)
	if err != nil {
		t.Fatal(err)
	}
	type gen struct {
		seed uint64
		size fleetgen.Size
	}
	gens := []gen{{1, fleetgen.M}, {2, fleetgen.M}, {3, fleetgen.M}, {1, fleetgen.L}}
	if *xl {
		gens = append(gens, gen{1, fleetgen.XL})
	}
	dir := t.TempDir()
	var fit, other int
	var short []string
	for _, g := range gens {
		name := fmt.Sprintf("%s seed %d", g.size.Name, g.seed)
		p := filepath.Join(dir, fmt.Sprintf("%s-%d.json", g.size.Name, g.seed))
		if err := os.WriteFile(p, fleetgen.JSON(fleetgen.Generate(g.seed, g.size, fleetgen.Options{Buildable: true})), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := compiler.Compile([]string{p})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		k, err := Load(ctx, crds, res.Tree)
		if err != nil {
			t.Fatalf("%s: Kueue's cache: %v", name, err)
		}
		for _, q := range compiler.KueueIntent(res.Fleet) {
			cq := k.snapshot.ClusterQueue(kueue.ClusterQueueReference(q.ClusterQueue))
			if cq == nil {
				t.Fatalf("%s: ClusterQueue %s not in Kueue's snapshot", name, q.ClusterQueue)
			}
			for _, class := range q.Classes {
				var j batchv1.Job
				if err := tree.Decode(res.Tree[tree.ClassExample(class)], &j); err != nil {
					t.Fatalf("%s: %s: %v", name, class, err)
				}
				j.Namespace = q.Namespace
				for _, rg := range cq.ResourceGroups {
					for _, f := range rg.Flavors {
						// derive reserves a workload only where the
						// checker proved the class lands.
						if !res.Report.Cell(class, string(f)).Fits {
							other++
							continue
						}
						pinned := j.DeepCopy()
						sel := map[string]string{keys.LabelPool: string(f)}
						for k, v := range pinned.Spec.Template.Spec.NodeSelector {
							sel[k] = v
						}
						pinned.Spec.Template.Spec.NodeSelector = sel
						a, err := k.Assign(ctx, q.ClusterQueue, pinned)
						if err != nil {
							t.Fatalf("%s: tenant %s, class %s: %v", name, q.Tenant, class, err)
						}
						switch {
						case a.Mode == "Fit":
							fit++
						case strings.Contains(a.Message, "insufficient quota"):
							short = append(short, fmt.Sprintf("%s: tenant %s, class %s, flavor %s: %s", name, q.Tenant, class, f, a.Message))
						default:
							other++ // Kueue would not assign the class there
						}
					}
				}
			}
		}
	}
	t.Logf("tenant × queued class × flavor: %d fit, %d refused for quota, %d where the class does not land or Kueue would not assign it", fit, len(short), other)
	if fit == 0 {
		t.Error("no workload fit: the generator no longer exercises the split")
	}
	for i, s := range short {
		if i == 5 {
			t.Errorf("... and %d more", len(short)-5)
			break
		}
		t.Error(s)
	}
}
