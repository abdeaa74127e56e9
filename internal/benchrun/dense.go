package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// denseSizes are the dense fleets 'check' is timed on (issue 51): n pools
// and n classes that each land on every pool, n² pairs for the checker to
// evaluate node by node. 500 is at compiler.MaxEvaluated (250,000 pairs),
// checked in full (exit 1: its one error is Kueue's CRD limit of 64 flavors
// a resource group, which 500 pools pass); 2,000 is past it, refused
// before the pairs are made (exit 2).
// Neither has a floor that does the same work: the lines give time and
// peak memory, which the bound keeps within load's 60 s and 4 GiB.
var denseSizes = []struct {
	n       int
	outcome string
	exit    int
}{{500, "checked", 1}, {2000, "refused", 2}}

func dense(gpufleet, tmp string, runs int) error {
	for _, d := range denseSizes {
		spec := filepath.Join(tmp, fmt.Sprintf("dense-%d", d.n), "fleet.cue")
		if err := os.MkdirAll(filepath.Dir(spec), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(spec, fleetgen.Dense(d.n, d.n, 1), 0o644); err != nil {
			return err
		}
		s, err := median(runs, func() (sample, error) { return measureExit(d.exit, gpufleet, "check", spec) })
		if err != nil {
			return fmt.Errorf("dense %d: %w", d.n, err)
		}
		fmt.Printf("dense pools=%d classes=%d pairs=%d mode=check outcome=%s gpufleet_s=%.3f gpufleet_rss_mb=%.0f\n",
			d.n, d.n, d.n*d.n, d.outcome, s.wall.Seconds(), s.rssMB())
	}
	return nil
}
