package compiler_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/queueing"
	"github.com/gpufleet/gpufleet/compiler/check/registry"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// TestKueueCRDs validates every Kueue object of every example fleet against
// Kueue's own CRDs (kueue.x-k8s.io/v1beta2), CEL rules included.
func TestKueueCRDs(t *testing.T) {
	v, err := crdtest.Load(upstream.Kueue, upstream.KueueCRDs)
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

// TestKueueChecksCanFail edits a compiled tree the way a hand-edit or a
// generator bug would, and requires the Kueue checks to catch each.
func TestKueueChecksCanFail(t *testing.T) {
	res := compile(t, "../fleets/platform")
	tr := map[string][]byte{}
	for p, b := range res.Tree {
		tr[p] = b
	}
	cq := string(tr["kueue/clusterqueues.yaml"])
	// Drop nvidia.com/gpu from coveredResources and from ml-platform's
	// first flavor: the GPU classes' request is then uncovered, and the
	// flavor's resources no longer follow coveredResources.
	cq = strings.Replace(cq, "    - memory\n    - nvidia.com/gpu\n", "    - memory\n", -1)
	tr["kueue/clusterqueues.yaml"] = []byte(cq)
	fl := string(tr["kueue/resourceflavors.yaml"])
	fl = strings.Replace(fl, "  nodeLabels:\n", "  nodeLabels:\n    a: x\n    b: x\n    c: x\n    d: x\n", 1)
	tr["kueue/resourceflavors.yaml"] = []byte(fl)

	cl, err := res.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	rep := *res.Report
	rep.Findings = nil
	if err := check.Kueue(tree.Bytes(tr), cl, &rep, compiler.KueueIntent(res.Fleet), registry.Checks); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range rep.Findings {
		got[string(f.Check)] = true
		t.Log(f)
	}
	for _, want := range []string{"KueueCovered", "KueueOrder", "KueueLimits"} {
		if !got[want] {
			t.Errorf("no %s finding", want)
		}
	}
}

// TestKueueWithinResourceQuota compiles generated fleets with cohorts,
// borrowing, lending and gangs, and requires every tenant whose quota
// gpufleet splits itself (no poolQuotas) to get a ClusterQueue that can
// never admit more than its namespaces' ResourceQuota (quota plus borrow)
// lets pods use: the KueueResourceQuota check, over Kueue's arithmetic.
// (With borrow as every flavor's borrowingLimit, 270 tenants failed.)
func TestKueueWithinResourceQuota(t *testing.T) {
	dir := t.TempDir()
	borrowing := 0
	for seed := range uint64(60) {
		f := fleetgen.Generate(seed, fleetgen.S, fleetgen.Options{Queues: true, Tricky: seed%5 == 0})
		p := filepath.Join(dir, fmt.Sprintf("fleet-%d.json", seed))
		if err := os.WriteFile(p, fleetgen.JSON(f), 0o644); err != nil {
			t.Fatal(err)
		}
		res := compile(t, p)
		for _, fd := range res.Report.Findings {
			if fd.Check == queueing.IDKueueResourceQuota && len(f.Tenants[fd.Tenant].PoolQuotas) == 0 {
				t.Errorf("%s: %s", p, fd.Message)
			}
		}
		for _, tn := range f.Tenants {
			if tn.Borrow != nil && len(tn.PoolQuotas) == 0 {
				borrowing++
			}
		}
	}
	t.Logf("%d borrowing tenants checked", borrowing)
	if borrowing < 50 {
		t.Errorf("only %d borrowing tenants: the generator no longer exercises borrowing", borrowing)
	}
}
