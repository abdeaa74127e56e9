package compiler_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/nodegroup"
	"github.com/gpufleet/gpufleet/compiler/plan"
	"github.com/gpufleet/gpufleet/compiler/report"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/write"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// TestPlanReadsWhatChanged holds compiler.Plan, which reads only the
// committed files that differ from the build (write.Changes) and takes the
// build's objects for the rest, to a plan made from every file's bytes on
// both sides, and the files it counts to write.Compare's. Generated fleets, each against
// itself edited (a pool grown, one shrunk, a quota moved) and against
// another fleet altogether.
func TestPlanReadsWhatChanged(t *testing.T) {
	dir := t.TempDir()
	edited := func(f *spec.Fleet) {
		pools := spec.Keys(f.Pools)
		slices.Sort(pools)
		p := f.Pools[pools[0]]
		p.Size.Max += 3
		f.Pools[pools[0]] = p
		q := f.Pools[pools[len(pools)-1]]
		q.Size.Max = max(q.Size.Min, 1)
		f.Pools[pools[len(pools)-1]] = q
		tenants := spec.Keys(f.Tenants)
		slices.Sort(tenants)
		for _, name := range tenants {
			tn := f.Tenants[name]
			if tn.Quota != nil && tn.Quota.GPU != nil {
				*tn.Quota.GPU += 4
				f.Tenants[name] = tn
				break
			}
		}
	}
	changes, budgets, gangs := 0, 0, 0
	for _, seed := range []uint64{1, 2} {
		before := fleetgen.Generate(seed, fleetgen.M, fleetgen.Options{Buildable: true})
		for k, after := range []*spec.Fleet{fleetgen.Generate(seed, fleetgen.M, fleetgen.Options{Buildable: true}), fleetgen.Generate(seed+10, fleetgen.M, fleetgen.Options{Buildable: true})} {
			if k == 0 {
				edited(after)
			}
			name := fmt.Sprintf("seed%d-%d", seed, k)
			t.Run(name, func(t *testing.T) {
				tree := filepath.Join(dir, name)
				if _, err := write.Tree(tree, compileFleet(t, dir, name+"-before", before).Tree); err != nil {
					t.Fatal(err)
				}
				res := compileFleet(t, dir, name+"-after", after)
				got, err := compiler.Plan(res, tree)
				if err != nil {
					t.Fatal(err)
				}
				want := fullPlan(t, res, tree)
				if g, w := planJSON(t, got), planJSON(t, want); g != w {
					t.Fatalf("plan from the changed files differs from the plan from every file:\n got %s\nwant %s", g, w)
				}
				if !got.Changed || len(got.NodeGroups) == 0 || len(got.Classes)+len(got.Tenants) == 0 {
					t.Fatalf("the edit changed nothing a plan shows: %s", planJSON(t, got))
				}
				changes += len(got.NodeGroups) + len(got.Classes) + len(got.Tenants)
				for _, g := range got.NodeGroups {
					for _, h := range g.Hits {
						if h.Budget != nil {
							budgets++
						}
						if h.Gang {
							gangs++
						}
					}
				}
			})
		}
	}
	t.Logf("%d node-group, class and tenant changes planned alike", changes)
	// The work the destroyed pools hit is read alike from the build's
	// objects and from the examples' bytes (their PodDisruptionBudgets,
	// gang annotations and kinds).
	if budgets == 0 || gangs == 0 {
		t.Errorf("the plans hit %d budgets and %d gangs: the comparison proves nothing of them", budgets, gangs)
	}
	t.Logf("%d budgets and %d gangs hit alike", budgets, gangs)
}

func compileFleet(t *testing.T, dir, name string, f *spec.Fleet) *compiler.Result {
	t.Helper()
	p := filepath.Join(dir, name+".json")
	if err := os.WriteFile(p, fleetgen.JSON(f), 0o644); err != nil {
		t.Fatal(err)
	}
	return compile(t, p)
}

// fullPlan decodes every file a plan reads, on both sides, from its bytes.
func fullPlan(t *testing.T, res *compiler.Result, dir string) *plan.Plan {
	t.Helper()
	committed, err := write.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	old, err := committed.Read(func(string) int64 { return 1 << 30 })
	if err != nil {
		t.Fatal(err)
	}
	side := func(tr tree.Tree) *plan.State {
		groups, err := nodegroup.NodeGroups(tree.Bytes(tr))
		if err != nil {
			t.Fatal(err)
		}
		r, err := plan.DecodeReport(tr[report.JSONPath])
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]plan.File{}
		for p, b := range tr {
			if plan.Reads(p) {
				if files[p], err = plan.ParseFile(p, b); err != nil {
					t.Fatal(err)
				}
			}
		}
		return plan.NewState(groups, r, files)
	}
	changes, err := write.Compare(dir, res.Tree)
	if err != nil {
		t.Fatal(err)
	}
	// Every file diff counts, the manifest too, in diff's order: plan
	// and diff never disagree on what is stale.
	var files []plan.FileChange
	for _, c := range changes {
		files = append(files, plan.FileChange{Path: c.Path, Kind: c.Kind})
	}
	after := side(res.Tree)
	// The new findings' positions: the committed report has none.
	after.Report.Findings = res.Report.Findings
	return plan.Compare(side(old), after, files)
}

func planJSON(t *testing.T, p *plan.Plan) string {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
