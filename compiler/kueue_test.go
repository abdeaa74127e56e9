package compiler_test

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/internal/crdtest"
)

// TestKueueCRDs validates every Kueue object of every example fleet against
// Kueue's own CRDs (kueue.x-k8s.io/v1beta2), CEL rules included.
func TestKueueCRDs(t *testing.T) {
	v, err := crdtest.Load("../../shared/crds/kueue/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range exampleFleets(t) {
		res := compile(t, dir)
		kinds := map[string]int{}
		for _, p := range res.Tree.Paths() {
			for i, doc := range docs(res.Tree[p]) {
				if !strings.Contains(string(doc), "apiVersion: kueue.x-k8s.io/") {
					continue
				}
				errs, err := v.Validate(doc)
				if err != nil {
					t.Fatalf("%s: %s doc %d: %v", dir, p, i, err)
				}
				for _, e := range errs {
					t.Errorf("%s: %s doc %d: %v", dir, p, i, e)
				}
				kind := strings.TrimSpace(strings.SplitN(strings.SplitN(string(doc), "\nkind: ", 2)[1], "\n", 2)[0])
				kinds[kind]++
			}
		}
		for _, k := range []string{"ResourceFlavor", "ClusterQueue", "LocalQueue", "WorkloadPriorityClass"} {
			if kinds[k] == 0 {
				t.Errorf("%s: no %s validated (got %v)", dir, k, kinds)
			}
		}
		t.Logf("%s: validated %v", dir, kinds)
	}
}
