package compiler_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/registry"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// Every finding the pipeline reports names a registered check and has its
// severity, or a lower one where the registry lets the spec lower it. The
// generated fleets (tricky escape hatches, and queued units of every kind,
// 60 seeds) give findings of most checks; the test fails if fewer than
// half of the registry is seen, so it cannot pass over nothing.
func TestFindingsRegistered(t *testing.T) {
	paths := exampleFleets(t)
	dir := t.TempDir()
	for seed := range uint64(70) {
		p := filepath.Join(dir, fmt.Sprintf("fleet-%d.json", seed))
		opts := fleetgen.Options{Tricky: seed%2 == 0}
		switch {
		case seed >= 60:
			opts = fleetgen.Options{Full: true}
		case seed >= 40:
			opts = fleetgen.Options{Queues: true, Composed: true}
		}
		if err := os.WriteFile(p, fleetgen.JSON(fleetgen.Generate(seed, fleetgen.S, opts)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	seen := map[check.ID]bool{}
	for _, p := range paths {
		for _, f := range compile(t, p).Report.Findings {
			c, ok := registry.Lookup(f.Check)
			switch {
			case !ok:
				t.Errorf("%s: finding of unregistered check %q: %s", p, f.Check, f.Message)
			case f.Severity != c.Severity && !(c.Lowerable && f.Severity == check.Warning):
				t.Errorf("%s: %s finding with severity %s, registered %s", p, f.Check, f.Severity, c.Severity)
			}
			seen[f.Check] = true
		}
	}
	t.Logf("findings of %d of %d checks: %v", len(seen), len(registry.Checks), seen)
	if 2*len(seen) < len(registry.Checks) {
		t.Errorf("findings of only %d of %d checks seen: %v", len(seen), len(registry.Checks), seen)
	}
}
