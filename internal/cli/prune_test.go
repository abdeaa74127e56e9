//go:build linux

package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/internal/cli"
)

const twoTenants = `package fleet

cluster: {provider: "eks", name: "demo", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
priorities: standard: value: 1000
pools: general: {instanceTypes: ["m7i.large"], size: {min: 1, max: 3}}
classes: web: {priority: "standard", resources: cpu: "500m"}
tenants: team: {namespaces: ["team"], classes: ["web"]}
tenants: old: {namespaces: ["old"], classes: ["web"]}
`

// pruneFixture builds two tenants into dir/out and returns a spec that
// drops the tenant "old", whose files a prune deletes.
func pruneFixture(t *testing.T) (dir, out, oneTenant string) {
	t.Helper()
	dir = t.TempDir()
	two := writeFile(t, dir, "two.cue", twoTenants)
	oneTenant = writeFile(t, dir, "one.cue", strings.Replace(twoTenants, "tenants: old:", "// ", 1))
	out = filepath.Join(dir, "out")
	if code, _, stderr := runCLI("build", two, "-o", out); code != cli.ExitOK {
		t.Fatalf("build: exit %d\n%s", code, stderr)
	}
	return dir, out, oneTenant
}

// immutable makes p undeletable (or, for a directory, its entries), even
// for root, or skips the test where it cannot.
func immutable(t *testing.T, p string) {
	t.Helper()
	if b, err := exec.Command("chattr", "+i", p).CombinedOutput(); err != nil {
		t.Skipf("chattr +i: %v %s", err, b)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", p).Run() })
}

// A file prune must delete in a directory it cannot write is found before
// anything changes: exit 2 and the tree as it was, byte for byte.
func TestPruneCheckedBeforeWriting(t *testing.T) {
	_, out, one := pruneFixture(t)
	immutable(t, filepath.Join(out, "tenants", "old"))
	before := treeSum(t, out)
	code, stdout, stderr := runCLI("build", one, "-o", out, "--prune")
	if code != cli.ExitInvalid || stdout != "" {
		t.Errorf("exit %d, want 2; stdout:\n%s", code, stdout)
	}
	if !strings.Contains(stderr, "cannot prune "+filepath.Join(out, "tenants", "old")) {
		t.Errorf("stderr does not name what cannot be pruned:\n%s", stderr)
	}
	if treeSum(t, out) != before {
		t.Error("the tree changed although the prune could not be done")
	}
}

// A deletion that still fails once the files are renamed into place (the
// file itself is immutable) exits 2, says the tree was updated and what was
// left, and the output reports what was written.
func TestPruneFailureAfterWriting(t *testing.T) {
	_, out, one := pruneFixture(t)
	stuck := filepath.Join("tenants", "old", "namespaces.yaml")
	immutable(t, filepath.Join(out, stuck))
	code, stdout, stderr := runCLI("build", one, "-o", out, "--prune", "--format", "json")
	if code != cli.ExitInvalid {
		t.Errorf("exit %d, want 2\n%s", code, stderr)
	}
	if !strings.Contains(stderr, out+" was updated") || !strings.Contains(stderr, stuck) {
		t.Errorf("stderr does not say the tree was updated and what could not be pruned:\n%s", stderr)
	}
	var doc struct {
		OK       bool     `json:"ok"`
		Written  []string `json:"written"`
		Pruned   []string `json:"pruned"`
		Unpruned []struct {
			Path   string `json:"path"`
			Reason string `json:"reason"`
		} `json:"unpruned"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not the build's document: %v\n%s", err, stdout)
	}
	if doc.OK || len(doc.Written) == 0 || len(doc.Pruned) == 0 || len(doc.Unpruned) != 1 || doc.Unpruned[0].Path != filepath.ToSlash(stuck) {
		t.Errorf("document %+v: want ok false, what was written and pruned, and %s unpruned", doc, stuck)
	}
	if _, err := os.Stat(filepath.Join(out, "tenants", "old", "kustomization.yaml")); err == nil {
		t.Error("the other files of the tenant were not pruned")
	}
}
