package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// diff and build --check exit 0 on an up-to-date tree, 1 on a stale one,
// and 2 on an invalid spec: CI tells "rebuild" from "broken" by the code.
func TestDiffExitCodes(t *testing.T) {
	dir := t.TempDir()
	spec := writeDemoFleet(t, dir)
	out := filepath.Join(dir, "out")
	run := func(args ...string) int {
		var o, e bytes.Buffer
		return Run(args, &o, &e)
	}
	if code := run("build", spec, "-o", out); code != ExitOK {
		t.Fatalf("build: exit %d", code)
	}
	for _, cmd := range [][]string{{"diff", spec, "-o", out}, {"build", spec, "-o", out, "--check"}} {
		if code := run(cmd...); code != ExitOK {
			t.Errorf("%v on a fresh tree: exit %d, want 0", cmd, code)
		}
	}
	if err := os.WriteFile(filepath.Join(out, "kustomization.yaml"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"diff", spec, "-o", out}, {"build", spec, "-o", out, "--check"}} {
		if code := run(cmd...); code != ExitFindings {
			t.Errorf("%v on a stale tree: exit %d, want 1", cmd, code)
		}
	}
	if code := run("diff", filepath.Join(dir, "missing.cue"), "-o", out); code != ExitInvalid {
		t.Errorf("diff of a missing spec: exit %d, want 2", code)
	}
}

// An empty -o is a usage error, never the current directory.
func TestEmptyOutput(t *testing.T) {
	for _, cmd := range [][]string{{"build", "x.cue", "-o", ""}, {"diff", "x.cue", "-o", ""}} {
		var o, e bytes.Buffer
		if code := Run(cmd, &o, &e); code != ExitInvalid || !bytes.Contains(e.Bytes(), []byte("-o needs a directory")) {
			t.Errorf("%v: exit %d, stderr %q", cmd, code, e.String())
		}
	}
}

// writeDemoFleet writes a small valid fleet to dir/fleet.cue.
func writeDemoFleet(t *testing.T, dir string) string {
	t.Helper()
	spec := filepath.Join(dir, "fleet.cue")
	if err := os.WriteFile(spec, []byte(`package fleet
cluster: {provider: "eks", name: "demo", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
priorities: p: value: 1
pools: general: {instanceTypes: ["m7i.large"], size: {min: 1, max: 3}}
classes: web: {priority: "p", resources: cpu: "500m"}
tenants: team: {namespaces: ["team"], classes: ["web"]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	return spec
}
