package compiler_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/load"
)

// TestFormatsAgree exports each example fleet to JSON and YAML and requires
// the same tree from all three, so data specs get CUE's validation and
// defaults exactly.
func TestFormatsAgree(t *testing.T) {
	for _, dir := range exampleFleets(t) {
		res := compile(t, dir)
		// Compile releases the CUE value once derived; evaluate it again.
		src, err := load.Evaluate([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		j, err := src.JSON()
		if err != nil {
			t.Fatal(err)
		}
		y, err := yaml.JSONToYAML(j)
		if err != nil {
			t.Fatal(err)
		}
		tmp := t.TempDir()
		for name, data := range map[string][]byte{"fleet.json": j, "fleet.yaml": y} {
			f := filepath.Join(tmp, name)
			if err := os.WriteFile(f, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(asStrings(res.Tree), asStrings(compile(t, f).Tree)); diff != "" {
				t.Errorf("%s as %s compiles differently (-cue +%s):\n%s", dir, name, name, diff)
			}
		}
	}
}

// TestSpecsUnify splits a fleet over a CUE file and a YAML file.
func TestSpecsUnify(t *testing.T) {
	tmp := t.TempDir()
	base := `package fleet
cluster: {provider: "eks", name: "c", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
priorities: p: value: 1
pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}}
classes: web: {priority: "p"}
`
	tenants := "tenants:\n  t:\n    namespaces: [t]\n    classes: [web]\n"
	if err := os.WriteFile(filepath.Join(tmp, "base.cue"), []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "tenants.yaml"), []byte(tenants), 0o644); err != nil {
		t.Fatal(err)
	}
	res := compile(t, filepath.Join(tmp, "base.cue"), filepath.Join(tmp, "tenants.yaml"))
	if _, ok := res.Tree["tenants/t/namespaces.yaml"]; !ok {
		t.Errorf("tenant from the YAML file was not compiled; tree: %v", res.Tree.Paths())
	}
}
