package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/internal/cli"
)

// treeJSON runs gpufleet with --format json, which must refuse the tree:
// exit 2, stderr empty, and on stdout one JSON document whose error says
// want (issue 36, Medium 9: build printed nothing, so '| jq .ok' failed).
// It returns the document.
func treeJSON(t *testing.T, want string, args ...string) map[string]any {
	t.Helper()
	code, stdout, stderr := runCLI(append(args, "--format", "json")...)
	if code != cli.ExitInvalid || stderr != "" {
		t.Errorf("%v: exit %d, want 2 and nothing on stderr:\n%s", args, code, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v: stdout is not one JSON document (%v):\n%s", args, err, stdout)
	}
	if e, _ := doc["error"].(string); !strings.Contains(e, want) {
		t.Errorf("%v: error %q, want it to contain %q", args, doc["error"], want)
	}
	return doc
}

// treeRefusedJSON checks a build's document: ok false, nothing written.
func treeRefusedJSON(t *testing.T, want string, args ...string) {
	t.Helper()
	doc := treeJSON(t, want, args...)
	if doc["ok"] != false || doc["output"] == nil || doc["summary"] == nil {
		t.Errorf("%v: want ok false, output and summary: %v", args, doc)
	}
	for _, k := range []string{"written", "unchanged", "pruned"} {
		if l, ok := doc[k].([]any); !ok || len(l) != 0 {
			t.Errorf("%v: %s is %v, want []", args, k, doc[k])
		}
	}
}

// diffRefusedJSON checks a diff's document: not up to date, no changes.
func diffRefusedJSON(t *testing.T, want string, args ...string) {
	t.Helper()
	doc := treeJSON(t, want, args...)
	if l, ok := doc["changes"].([]any); doc["upToDate"] != false || !ok || len(l) != 0 {
		t.Errorf("%v: want upToDate false and no changes: %v", args, doc)
	}
}

func TestBuildJSONWhenTreeRefused(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, dir, "fleet.cue", validFleet)
	changed := writeFile(t, dir, "changed.cue", strings.Replace(validFleet, "value: 1000", "value: 2000", 1))

	// -o naming a file.
	file := writeFile(t, dir, "file", "a file\n")
	treeRefusedJSON(t, "exists and is not a directory", "build", spec, "-o", file)
	diffRefusedJSON(t, "exists and is not a directory", "build", spec, "-o", file, "--check")
	diffRefusedJSON(t, "exists and is not a directory", "diff", spec, "-o", file)

	// A link where a generated file goes.
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI("build", spec, "-o", out); code != cli.ExitOK {
		t.Fatalf("build: exit %d\n%s", code, stderr)
	}
	k := filepath.Join(out, "kustomization.yaml")
	if err := os.Remove(k); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(file, k); err != nil {
		t.Fatal(err)
	}
	before := treeSum(t, out)
	treeRefusedJSON(t, "is a symbolic link", "build", changed, "-o", out)

	// A manifest entry that leaves the tree.
	if err := os.Remove(k); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI("build", spec, "-o", out); code != cli.ExitOK {
		t.Fatalf("build: exit %d\n%s", code, stderr)
	}
	m := filepath.Join(out, ".gpufleet-manifest")
	data, err := os.ReadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m, append(data, "../outside.yaml\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	before = treeSum(t, out)
	treeRefusedJSON(t, `path "../outside.yaml" leaves the output tree`, "build", changed, "-o", out)
	if treeSum(t, out) != before {
		t.Error("a refused build changed the tree")
	}
}
