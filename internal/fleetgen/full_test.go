package fleetgen_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// Full fleets are valid by construction, deterministic, cover the spec's
// features, and most of their classes land somewhere.
func TestFullFleets(t *testing.T) {
	dir := t.TempDir()
	classes, landing := 0, 0
	seen := map[string]int{}
	for seed := uint64(1); seed <= 60; seed++ {
		f := fleetgen.Generate(seed, fleetgen.S, fleetgen.Options{Full: true})
		data := fleetgen.JSON(f)
		if !bytes.Equal(data, fleetgen.JSON(fleetgen.Generate(seed, fleetgen.S, fleetgen.Options{Full: true}))) {
			t.Fatalf("seed %d: two different fleets", seed)
		}
		path := filepath.Join(dir, "fleet.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := compiler.Compile([]string{path})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		lands := map[string]bool{}
		for _, c := range res.Report.AllCells() {
			lands[c.Class] = lands[c.Class] || c.Fits
		}
		for name := range f.Classes {
			classes++
			if lands[name] {
				landing++
			}
		}
		features(f, seen)
	}
	t.Logf("%d classes, %d land somewhere; features %v", classes, landing, seen)
	if landing*10 < classes*7 {
		t.Errorf("only %d of %d classes land somewhere: want most", landing, classes)
	}
	for _, want := range []string{"time-slicing", "mps", "mig", "karpenter", "both", "dedicated", "efa", "zone+host", "required host",
		"anti-affinity", "gang", "minZones", "poolQuotas", "lend", "priorityQuotas", "sidecar", "overhead", "bottlerocket"} {
		if seen[want] == 0 {
			t.Errorf("no fleet has %s", want)
		}
	}
}

func features(f *spec.Fleet, seen map[string]int) {
	for _, p := range f.Pools {
		if p.Sharing != nil {
			seen[p.Sharing.Strategy]++
		}
		if p.MIG != "" {
			seen["mig"]++
		}
		if p.Provisioner == "karpenter" || p.Provisioner == "both" {
			seen[p.Provisioner]++
		}
		if len(p.DedicatedTo) > 0 {
			seen["dedicated"]++
		}
		if p.EFA {
			seen["efa"]++
		}
		if p.AMIFamily == "Bottlerocket" {
			seen["bottlerocket"]++
		}
	}
	for _, c := range f.Classes {
		if s := c.Spread; s != nil {
			if s.Zones != "" && s.Hosts != "" {
				seen["zone+host"]++
			}
			if s.Hosts == "required" {
				seen["required host"]++
			}
			if s.MinZones != nil {
				seen["minZones"]++
			}
		}
		if c.AntiAffinity != "" {
			seen["anti-affinity"]++
		}
		if c.Gang != nil {
			seen["gang"]++
		}
		if len(c.InitContainers) > 0 && c.InitContainers[0].RestartPolicy == "Always" {
			seen["sidecar"]++
		}
		if c.RuntimeClass != "" {
			seen["overhead"]++
		}
	}
	for _, tn := range f.Tenants {
		if len(tn.PoolQuotas) > 0 {
			seen["poolQuotas"]++
		}
		if tn.Lend != nil {
			seen["lend"]++
		}
		if len(tn.PriorityQuotas) > 0 {
			seen["priorityQuotas"]++
		}
	}
}
