package kueuediff

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/queueing"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/tree"
	kueuewire "github.com/gpufleet/gpufleet/compiler/wire/kueue"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/testfleet"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// TestDRAAccounting holds what the checker's Kueue model counts of a DRA
// class's pod (kueuemodel's ClassRequest: its claims' devices through the
// tree's deviceClassMappings) to Kueue v0.19.2's own DRA accounting
// (pkg/dra, run as its workload controller runs it on the Workload its
// integration builds), for every queued DRA class of the example fleets
// and of generated full fleets; and shows that a model counting no claims
// (kueuemodel.Request alone) disagrees on each.
func TestDRAAccounting(t *testing.T) {
	ctx := context.Background()
	crds, dirs := draFleets(t)
	var compared, blind, unmapped int
	for _, dir := range dirs {
		res, err := compiler.Compile([]string{dir})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		theirs, err := Load(ctx, crds, res.Tree)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		ours, err := kueuemodel.New(res.Typed())
		if err != nil {
			t.Fatal(err)
		}
		cl, err := res.Cluster()
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range compiler.KueueIntent(res.Fleet) {
			for _, class := range q.Classes {
				c := cl.Class(class)
				if c == nil || !c.Info.Claims.Asks() {
					continue
				}
				w, err := ClassWorkload(ctx, res.Tree, class, q.Namespace)
				if err != nil {
					t.Fatalf("%s: %s: %v", dir, class, err)
				}
				got, err := theirs.DRARequests(ctx, q.Namespace, w.Name, w.PodSets)
				if err != nil {
					t.Fatalf("%s: class %s: Kueue's DRA accounting: %v", dir, class, err)
				}
				want := got[w.PodSets[0].Name]
				plain := kueuemodel.Request(c.AsWritten(), ours.LimitRanges[q.Namespace])
				mine := subtract(ours.ClassRequest(c, q.Namespace), plain)
				if !equality.Semantic.DeepEqual(mine, want) {
					t.Errorf("%s: class %s in %s: the checker counts its claims as %v, Kueue as %v", dir, class, q.Namespace, mine, want)
				}
				if equality.Semantic.DeepEqual(corev1.ResourceList{}, want) {
					t.Errorf("%s: class %s: Kueue counts nothing of its claims", dir, class)
				}
				compared++
				if !equality.Semantic.DeepEqual(subtract(plain, plain), want) {
					blind++ // a model that ignores claims
				}
				unmapped += kueueDRAUnmapped(ctx, t, crds, res, dir, c, q)
			}
		}
	}
	t.Logf("%d queued DRA classes: the checker's count of their claims equals Kueue's pkg/dra; a model ignoring claims disagrees on %d; with its DeviceClass's mapping dropped, Kueue refuses each and KueueDRA says so (%d)", compared, blind, unmapped)
	if compared == 0 || blind != compared || unmapped != compared {
		t.Errorf("compared %d DRA classes, a claims-blind model caught on %d, an unmapped class refused by both on %d: want some, all", compared, blind, unmapped)
	}
}

// draFleets are Kueue's CRDs and the fleets the DRA accounting tests
// compile: the examples and 60 generated full fleets.
func draFleets(t *testing.T) (*crdtest.Validator, []string) {
	t.Helper()
	crds, err := crdtest.Load(upstream.Kueue, upstream.KueueCRDs)
	if err != nil {
		t.Fatal(err)
	}
	_, dirs, err := testfleet.Examples("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for seed := 1; seed <= 60; seed++ {
		p := filepath.Join(tmp, fmt.Sprintf("full-%d.json", seed))
		if err := os.WriteFile(p, fleetgen.JSON(fleetgen.Generate(uint64(seed), fleetgen.S, fleetgen.Options{Full: true})), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, p)
	}
	return crds, dirs
}

// kueueDRAUnmapped drops the mapping of the class's DeviceClass from the
// tree's deviceClassMappings: Kueue's pkg/dra must then refuse its
// Workload ("is not mapped in DRA configuration"), and the checker's
// KueueDRA find it; 1 if both do.
func kueueDRAUnmapped(ctx context.Context, t *testing.T, crds *crdtest.Validator, res *compiler.Result, dir string, c *sched.Class, q kueuemodel.Queue) int {
	t.Helper()
	dc := c.Info.Claims.Claims[0].Spec.Devices.Requests[0].Exactly.DeviceClassName
	mappings, err := kueuewire.DRAMappings(res.Tree[tree.KueueDRAConfigPath])
	if err != nil {
		t.Fatal(err)
	}
	var kept []kueuewire.DeviceClassMapping
	for _, m := range mappings {
		if !slices.Contains(m.DeviceClassNames, dc) {
			kept = append(kept, m)
		}
	}
	raw, err := yaml.Marshal(kueuewire.Configuration{TypeMeta: metav1.TypeMeta{APIVersion: kueuewire.ConfigAPIVersion, Kind: "Configuration"},
		Resources: &kueuewire.ConfigResources{DeviceClassMappings: kept}})
	if err != nil {
		t.Fatal(err)
	}
	tr := maps.Clone(res.Tree)
	tr[tree.KueueDRAConfigPath] = raw
	theirs, err := Load(ctx, crds, tr)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	w, err := ClassWorkload(ctx, tr, c.Name, q.Namespace)
	if err != nil {
		t.Fatal(err)
	}
	_, kerr := theirs.DRARequests(ctx, q.Namespace, w.Name, w.PodSets)
	model, err := kueuemodel.New(tree.Bytes(tr))
	if err != nil {
		t.Fatal(err)
	}
	found := queueing.KueueDRA(&check.Admission{Queue: kueuemodel.Queue{Tenant: q.Tenant}, Model: model, Classes: []check.Queued{{Class: c}}})
	if kerr == nil || !strings.Contains(kerr.Error(), "is not mapped in DRA configuration") || len(found) == 0 {
		t.Errorf("%s: class %s with %s unmapped: Kueue says %v, KueueDRA %v", dir, c.Name, dc, kerr, found)
		return 0
	}
	return 1
}

// subtract is a - b, resource by resource, without the zeros.
func subtract(a, b corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for r, q := range a {
		q = q.DeepCopy()
		if s, ok := b[r]; ok {
			q.Sub(s)
		}
		if !q.IsZero() {
			out[r] = q
		}
	}
	return out
}
