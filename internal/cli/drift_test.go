package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/drift"
)

// writeCleanNodes writes the nodes spec's pools launch, as kubectl lists
// them, to path.
func writeCleanNodes(t *testing.T, spec, path string) string {
	t.Helper()
	res, err := compiler.Compile([]string{spec})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := res.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(drift.NodeList(drift.Launched(cl)), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDriftExitCodes pins drift's exit codes: 0 clean, 1 drift, 2 bad
// usage or a bad nodes file, with stdout empty on 2.
func TestDriftExitCodes(t *testing.T) {
	dir := t.TempDir()
	spec := writeDemoFleet(t, dir)
	clean := writeCleanNodes(t, spec, filepath.Join(dir, "nodes.json"))
	b, _ := os.ReadFile(clean)
	drifted := filepath.Join(dir, "drifted.json")
	os.WriteFile(drifted, bytes.Replace(b, []byte(`"gpufleet.dev/pool": "general"`), []byte(`"gpufleet.dev/pool": "gone"`), 1), 0o644)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"items\": [}\n"), 0o644)
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"drift", spec, "--nodes", clean}, ExitOK, ""},
		{[]string{"drift", spec, "--nodes", drifted}, ExitFindings, ""},
		{[]string{"drift", spec}, ExitInvalid, "drift: missing --nodes"},
		{[]string{"drift", "--nodes", clean}, ExitInvalid, "drift: missing SPEC"},
		{[]string{"drift", spec, "--nodes", bad}, ExitInvalid, "bad.json:2:13: invalid JSON"},
		{[]string{"drift", spec, "--nodes", filepath.Join(dir, "none.json")}, ExitInvalid, "no such file"},
		{[]string{"drift", spec, "--nodes", dir}, ExitInvalid, "a directory, not a file"},
		{[]string{"drift", spec, "--nodes", clean, "--format", "json"}, ExitOK, ""},
		{[]string{"drift", spec, "--nodes", bad, "--format", "json"}, ExitInvalid, "invalid JSON"},
	} {
		var stdout, stderr bytes.Buffer
		code := Run(tc.args, &stdout, &stderr)
		if code != tc.code || tc.stderr != "" && !strings.Contains(stderr.String(), tc.stderr) || code == ExitInvalid && stdout.Len() > 0 {
			t.Errorf("%v: exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", tc.args, code, tc.code, tc.stderr, &stdout, &stderr)
		}
	}
}

// Drift findings in text stop at maxShown, as spec diagnostics do, with a
// line that says how many more there are and where to find them.
func TestPrintDriftCapped(t *testing.T) {
	for _, tc := range []struct{ findings, lines int }{{3, 3}, {maxShown, maxShown}, {maxShown + 50, maxShown + 1}} {
		r := &drift.Report{}
		for i := range tc.findings {
			r.Findings = append(r.Findings, drift.Finding{Kind: drift.NoPool, Node: fmt.Sprintf("n%d", i), Message: "differs"})
		}
		var b bytes.Buffer
		printDrift(&b, r)
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")[1:] // after the count
		if len(lines) != tc.lines {
			t.Errorf("%d findings: %d lines, want %d", tc.findings, len(lines), tc.lines)
		}
		if tc.findings > maxShown && lines[len(lines)-1] != "gpufleet: 50 more drift findings not shown; --format json lists them all" {
			t.Errorf("last line %q", lines[len(lines)-1])
		}
	}
}
