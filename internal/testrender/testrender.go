// Package testrender runs the pipeline up to render for tests of render and
// of the stages that read its tree (encoders, provisioners).
package testrender

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/cloud"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/load"
	"github.com/gpufleet/gpufleet/compiler/render"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/validate"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// NodeGroupsFleet exercises what the example fleets leave at defaults: EFA,
// Bottlerocket (GPU and CPU), an explicit volume size, a taint without value.
const NodeGroupsFleet = `package fleet
cluster: {provider: "eks", name: "ng", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
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

// Fleet is a fleet's derived policy and its tree.
type Fleet struct {
	D    *derive.Fleet
	Tree tree.Tree
	// Objects are render's typed objects (tree.Objects).
	Objects tree.Objects
}

// Examples returns every example fleet and NodeGroupsFleet, each rendered.
// A missing fleets/ fails: a test over nothing must not pass.
func Examples(t *testing.T) map[string]Fleet {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(root(t), "fleets", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no example fleets: %v", err)
	}
	out := map[string]Fleet{"nodegroups-test": Render(t, testfleet.Write(t, NodeGroupsFleet))}
	for _, dir := range dirs {
		out[filepath.Base(dir)] = Render(t, dir)
	}
	return out
}

// Render runs the pipeline up to render; node-group files need no more.
func Render(t *testing.T, path string) Fleet {
	t.Helper()
	src, err := load.Load([]string{path})
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	cl, err := cloud.For(src.Fleet.Cluster.Provider)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	cat := cl.Catalog(src.Fleet.InstanceTypes)
	if err := validate.Fleet(src, cl, cat); err != nil {
		t.Fatalf("validate %s: %v", path, err)
	}
	d := derive.Derive(src.Fleet, cl, cat)
	tr, err := render.Render(d)
	if err != nil {
		t.Fatalf("render %s: %v", path, err)
	}
	return Fleet{D: d, Tree: tr.Tree, Objects: tr.Objects}
}

// root is the repository's root: the nearest directory up that has fleets/.
func root(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if fi, err := os.Stat(filepath.Join(dir, "fleets")); err == nil && fi.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no fleets/ above the working directory")
		}
		dir = parent
	}
}
