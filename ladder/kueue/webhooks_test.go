package kueuediff

import (
	"context"
	"fmt"
	"strings"
	"testing"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/webhooks"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// judged counts the Kueue objects each webhook judged.
type judged struct{ flavors, cohorts, queues int }

// admitObjects runs Kueue v0.19.2's own defaulting and validating webhooks
// (pkg/webhooks: ResourceFlavorWebhook, CohortWebhook, ClusterQueueWebhook,
// as its manager registers them) on every Kueue object of the tree, each
// first defaulted by its CRD as kube-apiserver stores it: the API server
// calls them on create, and refuses what they refuse where the CRD's schema
// accepted it. It returns the webhooks' refusals.
func admitObjects(ctx context.Context, crds *crdtest.Validator, tr tree.Tree, n *judged) ([]string, error) {
	var bad []string
	refuse := func(kind, name string, err error) {
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s %s: %v", kind, name, err))
		}
	}
	var flavors []kueue.ResourceFlavor
	if err := decode(crds, tr[tree.KueueFlavorsPath], &flavors); err != nil {
		return nil, err
	}
	rf := &webhooks.ResourceFlavorWebhook{}
	for i := range flavors {
		f := &flavors[i]
		refuse("ResourceFlavor", f.Name, rf.Default(ctx, f))
		_, err := rf.ValidateCreate(ctx, f)
		refuse("ResourceFlavor", f.Name, err)
		n.flavors++
	}
	var cohorts []kueue.Cohort
	if err := decode(crds, tr[tree.KueueCohortsPath], &cohorts); err != nil {
		return nil, err
	}
	co := &webhooks.CohortWebhook{}
	for i := range cohorts {
		c := &cohorts[i]
		refuse("Cohort", c.Name, co.Default(ctx, c))
		_, err := co.ValidateCreate(ctx, c)
		refuse("Cohort", c.Name, err)
		n.cohorts++
	}
	var cqs []kueue.ClusterQueue
	if err := decode(crds, tr[tree.KueueQueuesPath], &cqs); err != nil {
		return nil, err
	}
	cw := &webhooks.ClusterQueueWebhook{}
	for i := range cqs {
		q := &cqs[i]
		refuse("ClusterQueue", q.Name, cw.Default(ctx, q))
		_, err := cw.ValidateCreate(ctx, q)
		refuse("ClusterQueue", q.Name, err)
		n.queues++
	}
	return bad, nil
}

// TestWebhooks holds every ResourceFlavor, Cohort and ClusterQueue of the
// example fleets and the generated ones to Kueue's own webhooks: the CRD
// schema alone let a fair-sharing weight of 1e-10 through as "1n", which
// the ClusterQueue webhook (validateFairSharing) refuses.
func TestWebhooks(t *testing.T) {
	ctx := context.Background()
	crds, err := crdtest.Load(upstream.Kueue, upstream.KueueCRDs)
	if err != nil {
		t.Fatal(err)
	}
	var n judged
	var bad []string
	for _, fc := range fleetCases(t) {
		res, err := compiler.Compile([]string{fc.path})
		if res == nil {
			t.Fatalf("%s: %v", fc.name, err)
		}
		b, err := admitObjects(ctx, crds, res.Tree, &n)
		if err != nil {
			t.Fatalf("%s: %v", fc.name, err)
		}
		for _, x := range b {
			bad = append(bad, fc.name+": "+x)
		}
	}
	t.Logf("Kueue's webhooks judged %d ResourceFlavors, %d Cohorts and %d ClusterQueues; %d refused", n.flavors, n.cohorts, n.queues, len(bad))
	if n.queues < 1000 || n.cohorts == 0 || n.flavors == 0 {
		t.Errorf("only %+v judged: the fleets no longer exercise Kueue", n)
	}
	if len(bad) > 0 {
		t.Errorf("Kueue's webhooks refuse %d objects:\n%s", len(bad), strings.Join(bad[:min(10, len(bad))], "\n"))
	}
}

// TestWebhooksCatchFairSharing is the proof that the webhooks can fail: a
// ClusterQueue whose weight collapses to 1n is refused in Kueue's words.
func TestWebhooksCatchFairSharing(t *testing.T) {
	crds, err := crdtest.Load(upstream.Kueue, upstream.KueueCRDs)
	if err != nil {
		t.Fatal(err)
	}
	cq := "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: a}\nspec:\n  fairSharing: {weight: 1n}\n  resourceGroups: []\n"
	var n judged
	bad, err := admitObjects(context.Background(), crds, tree.Tree{tree.KueueQueuesPath: []byte(cq)}, &n)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 1 || !strings.Contains(bad[0], "When not 0, weight must be > 10e-9") {
		t.Errorf("refusals %q, want the fair-sharing weight's", bad)
	}
}
