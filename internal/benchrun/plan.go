package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/gpufleet/gpufleet/compiler/plan"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// planned is the mode that plans a change against the tree a build wrote:
// the spec with its first pool's max one node higher, which changes the
// node groups, the report and the quotas split over the pools.
const planned = "plan"

// writeGrown writes the fleet with its first pool grown beside spec.
func writeGrown(dir string, size fleetgen.Size, seed uint64) (string, error) {
	f := fleetgen.Generate(seed, size, fleetgen.Options{Buildable: true})
	names := spec.Keys(f.Pools)
	slices.Sort(names)
	p := f.Pools[names[0]]
	p.Size.Max++
	f.Pools[names[0]] = p
	grown := filepath.Join(dir, "fleet-grown.json")
	return grown, os.WriteFile(grown, fleetgen.JSON(f), 0o644)
}

// planLine is plan's time against check's on the same spec, and the size
// of its Markdown, which must fit a pull-request comment.
func planLine(size fleetgen.Size, plans, checks sample, markdown int) string {
	return fmt.Sprintf("size=%s mode=plan gpufleet_s=%.3f check_s=%.3f plan_check_ratio=%.2f gpufleet_rss_mb=%.0f markdown_bytes=%d markdown_limit=%d",
		size.Name, plans.wall.Seconds(), checks.wall.Seconds(), plans.wall.Seconds()/checks.wall.Seconds(), plans.rssMB(), markdown, plan.MaxMarkdown)
}

// markdownSize is the length of plan's Markdown for grown against tree.
func markdownSize(gpufleet, grown, tree string) (int, error) {
	out, err := exec.Command(gpufleet, "plan", grown, "-o", tree, "--format", "markdown").Output()
	if err != nil {
		return 0, fmt.Errorf("plan --format markdown: %w", err)
	}
	return len(out), nil
}
