package render_test

import (
	"path/filepath"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/load"
	"github.com/gpufleet/gpufleet/compiler/render"
	"github.com/gpufleet/gpufleet/compiler/validate"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// nodegroupsFleet exercises what the example fleets leave at defaults: EFA,
// Bottlerocket (GPU and CPU), an explicit volume size, a taint without value.
const nodegroupsFleet = `package fleet
cluster: {provider: "eks", name: "ng", region: "us-east-1", version: "1.33", zones: ["us-east-1a", "us-east-1b"]}
priorities: p: value: 1
pools: {
	"a100-efa": {instanceTypes: ["p4d.24xlarge", "p4de.24xlarge"], zones: ["us-east-1b"], efa: true,
		amiFamily: "Bottlerocket", capacity: "spot", size: {min: 0, max: 2}}
	"cpu": {instanceTypes: ["m7i.large"], amiFamily: "Bottlerocket", volumeSizeGiB: 50, size: {min: 1, max: 3},
		labels: "example.com/tier": "web", taints: [{key: "example.com/web", effect: "PreferNoSchedule"}]}
	"l4": {instanceTypes: ["g6.xlarge", "g6.12xlarge"], size: {min: 0, max: 4, desired: 1},
		taints: [{key: "example.com/batch", value: "yes", effect: "NoExecute"}]}
}
classes: web: priority: "p"
tenants: t: {namespaces: ["t"], classes: ["web"]}
`

// rendered is a fleet's derived policy and its tree.
type rendered struct {
	d    *derive.Fleet
	tree render.Tree
}

// renderedFleets returns every example fleet and the fleet above, each rendered.
// A missing fleets/ fails: a test over nothing must not pass.
func renderedFleets(t *testing.T) map[string]rendered {
	t.Helper()
	dirs, err := filepath.Glob("../../fleets/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no example fleets under ../../fleets: %v", err)
	}
	extra := testfleet.Write(t, nodegroupsFleet)
	trees := map[string]rendered{"nodegroups-test": renderFleet(t, extra)}
	for _, dir := range dirs {
		trees[filepath.Base(dir)] = renderFleet(t, dir)
	}
	return trees
}

// renderFleet runs the pipeline up to render; node-group files need no more.
func renderFleet(t *testing.T, path string) rendered {
	t.Helper()
	src, err := load.Load([]string{path})
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	cat := catalog.New(src.Fleet.InstanceTypes)
	if err := validate.Fleet(src, cat); err != nil {
		t.Fatalf("validate %s: %v", path, err)
	}
	d := derive.Derive(src.Fleet, cat)
	tree, err := render.Render(d)
	if err != nil {
		t.Fatalf("render %s: %v", path, err)
	}
	return rendered{d: d, tree: tree}
}
