package kueuediff

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/testfleet"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

var generated = flag.Int("fleets", 300, "generated fleets in the differential test")

type fleetCase struct{ name, path string }

func fleetCases(t *testing.T) []fleetCase {
	t.Helper()
	_, dirs, err := testfleet.Examples("../..")
	if err != nil {
		t.Fatal(err)
	}
	var cases []fleetCase
	for _, d := range dirs {
		cases = append(cases, fleetCase{filepath.Base(d), d})
	}
	tmp := t.TempDir()
	for seed := 1; seed <= *generated; seed++ {
		f := filepath.Join(tmp, fmt.Sprintf("gen-%d.json", seed))
		size := fleetgen.Size{Name: "queues", Pools: 4 + seed%5, Classes: 6, Tenants: 3 + seed%4}
		spec := fleetgen.Generate(uint64(seed), size, fleetgen.Options{Queues: true, Tricky: seed%5 == 0})
		if err := os.WriteFile(f, fleetgen.JSON(spec), 0o644); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, fleetCase{fmt.Sprintf("seed %d", seed), f})
	}
	return cases
}

// verdict is one side's decision for a tenant's workload of a class.
type verdict struct {
	Admitted bool
	Flavors  map[string]string
	Message  string
}

func (v verdict) String() string {
	if v.Admitted {
		return fmt.Sprintf("admitted to %v", v.Flavors)
	}
	return v.Message
}

type disagreement struct {
	fleet, tenant, class string
	ours, theirs         verdict
	job                  []byte
	queue                []byte
}

func (d disagreement) String() string {
	return fmt.Sprintf("%s: tenant %s, class %s:\n  checker: %s\n  Kueue:   %s\n--- workload\n%s--- ClusterQueues, Cohorts, ResourceFlavors\n%s",
		d.fleet, d.tenant, d.class, d.ours, d.theirs, d.job, d.queue)
}

// TestDifferential asks Kueue v0.19.2's own flavor assigner, over a cache
// built from the emitted objects, where it admits one workload of every
// queued class of every tenant, on an empty cluster, and requires the
// checker's Kueue model to say the same: admitted or not, to which flavor,
// and in Kueue's words.
func TestDifferential(t *testing.T) {
	ctx := context.Background()
	crds, err := crdtest.Load(upstream.Kueue, upstream.KueueCRDs)
	if err != nil {
		t.Fatal(err)
	}
	var compared, admitted int
	reasons, kinds := map[string]int{}, map[string]int{}
	var bad []disagreement
	for _, fc := range fleetCases(t) {
		res, err := compiler.Compile([]string{fc.path})
		if err != nil {
			t.Fatalf("%s: %v", fc.name, err)
		}
		theirs, err := Load(ctx, crds, res.Tree)
		if err != nil {
			t.Fatalf("%s: Kueue's cache: %v", fc.name, err)
		}
		ours, err := kueuemodel.New(res.Typed())
		if err != nil {
			t.Fatalf("%s: %v", fc.name, err)
		}
		cl, err := res.Cluster()
		if err != nil {
			t.Fatalf("%s: %v", fc.name, err)
		}
		for _, q := range compiler.KueueIntent(res.Fleet) {
			ns := q.Namespace
			for _, class := range q.Classes {
				raw := res.Tree[tree.ClassExample(class)]
				// Kueue's own integration makes the workload: a Job's
				// PodSet, a StatefulSet's pod group, a Deployment's pod.
				w, err := ClassWorkload(ctx, res.Tree, class, ns)
				if err != nil {
					t.Fatalf("%s: %s: %v", fc.name, class, err)
				}
				kinds[w.Kind]++
				k, err := theirs.AssignPodSets(ctx, q.ClusterQueue, ns, w.Name, w.PodSets)
				if err != nil {
					t.Fatalf("%s: tenant %s, class %s: %v", fc.name, q.Tenant, class, err)
				}
				c := cl.Class(class)
				a := ours.Assign(q.ClusterQueue, c.Pod, kueuemodel.Request(c.AsWritten(), ours.LimitRanges[ns]), kueuemodel.UnitPods(c))
				o := verdict{a.Admitted(), names(a.Flavors), a.Message}
				want := verdict{k.Mode == "Fit", names(k.Flavors), k.Message}
				if !want.Admitted {
					want.Flavors = map[string]string{}
				}
				compared++
				if want.Admitted {
					admitted++
				} else {
					reasons[kind(want.Message)]++
				}
				if o.Admitted != want.Admitted || o.Message != want.Message || !maps.Equal(o.Flavors, want.Flavors) {
					bad = append(bad, disagreement{fc.name, q.Tenant, class, o, want, raw, kueueObjects(res.Tree)})
				}
			}
		}
	}
	t.Logf("tenant × queued class workloads compared: %d %v; admitted %d, refused %d %v", compared, summary(kinds), admitted, compared-admitted, summary(reasons))
	if compared < 1000 {
		t.Errorf("only %d workloads compared: the generator no longer exercises Kueue", compared)
	}
	for i, d := range bad {
		if i == 5 {
			t.Errorf("... and %d more disagreements", len(bad)-5)
			break
		}
		t.Error(d)
	}
	if len(bad) > 0 {
		t.Errorf("%d of %d workloads: the checker and Kueue disagree", len(bad), compared)
	}
}

func names[K ~string](m map[K]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[string(k)] = v
	}
	return out
}

// kind is a refusal's first reason with its figures and names dropped.
func kind(msg string) string {
	msg = strings.TrimPrefix(msg, "couldn't assign flavors to pod set main: ")
	switch {
	case strings.HasPrefix(msg, "insufficient quota"):
		return "insufficient quota"
	case strings.HasPrefix(msg, "untolerated taint"):
		return "untolerated taint"
	case strings.Contains(msg, "doesn't match node affinity"):
		return "node affinity"
	case strings.Contains(msg, "unavailable in ClusterQueue"):
		return "resource unavailable"
	}
	return msg
}

func summary(m map[string]int) string {
	keys := slices.Collect(maps.Keys(m))
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, m[k]))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func kueueObjects(tr tree.Tree) []byte {
	var b []byte
	for _, p := range []string{tree.KueueQueuesPath, tree.KueueCohortsPath, tree.KueueFlavorsPath} {
		b = append(b, tr[p]...)
	}
	return b
}
