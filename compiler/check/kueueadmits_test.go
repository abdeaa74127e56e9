package check_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// TestAdmitsMemo holds the Kueue checks' memo of kueue.Admits to Admits
// itself, for every queued class on every flavor of every queue that
// queues it, in the example fleets and generated ones with taints,
// tolerations and affinity that tell classes and flavors apart. The
// fleets must have a flavor that admits one class and not another, and a
// class admitted to one flavor and not another: a memo keyed by flavor
// alone, or by class alone, would then answer wrong.
func TestAdmitsMemo(t *testing.T) {
	paths, err := filepath.Glob("../../fleets/*")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example fleets: %v", err)
	}
	dir := t.TempDir()
	for seed := uint64(1); seed <= 6; seed++ {
		opts := []fleetgen.Options{{Tricky: true}, {Queues: true}, {Full: true}}[seed%3]
		p := filepath.Join(dir, fmt.Sprintf("gen-%d.json", seed))
		if err := os.WriteFile(p, fleetgen.JSON(fleetgen.Generate(seed, fleetgen.S, opts)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	var pairs, flavorSplits, classSplits int
	for _, p := range paths {
		res, err := compiler.Compile([]string{p})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		m, err := check.NewKueueModel(res.Typed())
		if err != nil {
			t.Fatal(err)
		}
		cl, err := res.Cluster()
		if err != nil {
			t.Fatal(err)
		}
		queues := compiler.KueueIntent(res.Fleet)
		memo := check.AdmitsMemo(m, cl, queues)
		byFlavor := map[string]map[bool]bool{} // flavor → verdicts its classes got
		byClass := map[string]map[bool]bool{}
		for _, q := range queues {
			for _, name := range q.Classes {
				c := cl.Class(name)
				if c == nil {
					continue
				}
				for _, rg := range m.Queues[q.ClusterQueue].Spec.ResourceGroups {
					for _, f := range rg.Flavors {
						ok, reason, held := memo(c, f.Name)
						wantOK, wantReason := kueue.Admits(f.Name, m.Flavors[f.Name], c.Pod)
						if !held || ok != wantOK || reason != wantReason {
							t.Fatalf("%s: class %s, flavor %s: memo says %v %q (held %v), Admits %v %q", p, name, f.Name, ok, reason, held, wantOK, wantReason)
						}
						pairs++
						for k, seen := range map[string]map[string]map[bool]bool{f.Name: byFlavor, name: byClass} {
							if seen[k] == nil {
								seen[k] = map[bool]bool{}
							}
							seen[k][ok] = true
						}
					}
				}
			}
		}
		for _, vs := range byFlavor {
			if len(vs) == 2 {
				flavorSplits++
			}
		}
		for _, vs := range byClass {
			if len(vs) == 2 {
				classSplits++
			}
		}
	}
	t.Logf("%d pairs; %d flavors admit some classes and not others, %d classes some flavors and not others", pairs, flavorSplits, classSplits)
	if flavorSplits == 0 || classSplits == 0 {
		t.Fatalf("the fleets no longer tell a wrong memo key apart: %d flavor splits, %d class splits", flavorSplits, classSplits)
	}
}
