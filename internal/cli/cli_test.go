package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/internal/cli"
)

// validFleet is a minimal fleet that compiles.
const validFleet = `package fleet

cluster: {
	provider: "eks"
	name:     "demo"
	region:   "us-east-1"
	version:  "1.36"
	zones: ["us-east-1a", "us-east-1b"]
}

priorities: standard: value: 1000

pools: general: {
	instanceTypes: ["m7i.large"]
	size: {min: 1, max: 3}
}

classes: web: priority: "standard"

tenants: team: {
	namespaces: ["team"]
	classes: ["web"]
}
`

// TestExitCodes pins the exact exit code of each kind of outcome; the
// scripts in cmd/gpufleet/testdata/script can only tell zero from non-zero.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string { return writeFile(t, dir, name, data) }
	valid := write("valid.cue", validFleet)
	undefined := write("undefined.cue", strings.Replace(validFleet, `priority: "standard"`, `priority: "urgent"`, 1))
	syntax := write("syntax.cue", strings.Replace(validFleet, `classes: web: priority: "standard"`, `classes: web: {priority: "standard"`, 1))
	wrongType := write("type.cue", strings.Replace(validFleet, `min: 1`, `min: "one"`, 1))
	badYAML := write("bad.yaml", "cluster: {provider: gke}\n")
	missing := filepath.Join(dir, "missing.cue")

	for _, tc := range []struct {
		name string
		args []string
		code int
		// stderr must contain this; empty means stderr must be empty.
		stderr string
		// stdout must contain this; empty means stdout must be empty.
		stdout string
	}{
		{"vet valid", []string{"vet", valid}, cli.ExitOK, "", "ok\n"},
		{"vet valid json", []string{"vet", "--format", "json", valid}, cli.ExitOK, "", `"ok": true`},
		{"build valid", []string{"build", valid, "-o", filepath.Join(dir, "out-valid")}, cli.ExitOK, "", "wrote 22 files"},
		{"version", []string{"version"}, cli.ExitOK, "", "gpufleet "},
		{"schema", []string{"schema"}, cli.ExitOK, "", "#Fleet: {"},
		{"help", []string{"--help"}, cli.ExitOK, "", "Exit codes:"},
		{"build help", []string{"build", "--help"}, cli.ExitOK, "", "Examples:"},

		{"undefined priority", []string{"vet", undefined}, cli.ExitInvalid, `names priority "urgent", which is not defined`, ""},
		{"undefined priority build", []string{"build", undefined, "-o", filepath.Join(dir, "out-undefined")}, cli.ExitInvalid, "invalid spec: 1 error", ""},
		{"undefined priority json", []string{"vet", "--format", "json", undefined}, cli.ExitInvalid, "", `"ok": false`},
		{"syntax error", []string{"vet", syntax}, cli.ExitInvalid, "expected '}'", ""},
		{"wrong type", []string{"build", wrongType, "-o", filepath.Join(dir, "out-type")}, cli.ExitInvalid, "mismatched types string and int", ""},
		{"bad yaml", []string{"vet", badYAML}, cli.ExitInvalid, "bad.yaml:1:", ""},
		{"nonexistent spec", []string{"vet", missing}, cli.ExitInvalid, "missing.cue", ""},

		{"missing SPEC build", []string{"build"}, cli.ExitInvalid, "gpufleet build: missing SPEC", ""},
		{"missing SPEC vet", []string{"vet"}, cli.ExitInvalid, "gpufleet vet: missing SPEC", ""},
		{"unknown flag", []string{"build", "--frobnicate", valid}, cli.ExitInvalid, "unknown flag: --frobnicate", ""},
		{"unknown shorthand", []string{"vet", "-x", valid}, cli.ExitInvalid, "unknown shorthand flag", ""},
		{"unknown format", []string{"vet", "--format", "yaml", valid}, cli.ExitInvalid, `unknown --format "yaml"`, ""},
		{"unknown format build", []string{"build", "--format", "yaml", valid, "-o", filepath.Join(dir, "out-format")}, cli.ExitInvalid, `unknown --format "yaml"`, ""},
		{"unknown command", []string{"compile", valid}, cli.ExitInvalid, `unknown command "compile"`, ""},
		{"schema with args", []string{"schema", "extra"}, cli.ExitInvalid, `"extra"`, ""},
		{"version with args", []string{"version", "extra"}, cli.ExitInvalid, `"extra"`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := cli.Run(tc.args, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("gpufleet %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.args, " "), code, tc.code, &stdout, &stderr)
			}
			check := func(stream, got, want string) {
				t.Helper()
				switch {
				case want == "" && got != "":
					t.Errorf("%s not empty:\n%s", stream, got)
				case !strings.Contains(got, want):
					t.Errorf("%s does not contain %q:\n%s", stream, want, got)
				}
			}
			check("stderr", stderr.String(), tc.stderr)
			check("stdout", stdout.String(), tc.stdout)
		})
	}

	// Failed builds wrote nothing.
	for _, out := range []string{"out-undefined", "out-type", "out-format"} {
		if _, err := os.Stat(filepath.Join(dir, out)); !os.IsNotExist(err) {
			t.Errorf("failed build left %s behind (stat: %v)", out, err)
		}
	}
}

// TestJSONDiagnostics checks that --format json keeps stdout parseable for
// an invalid spec and positions the diagnostic.
func TestJSONDiagnostics(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "fleet.cue")
	if err := os.WriteFile(spec, []byte(strings.Replace(validFleet, `priority: "standard"`, `priority: "urgent"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := cli.Run([]string{"vet", "--format", "json", spec}, &stdout, &stderr); code != cli.ExitInvalid {
		t.Fatalf("exit %d, want %d", code, cli.ExitInvalid)
	}
	var got struct {
		OK          bool `json:"ok"`
		Diagnostics []struct {
			Pos struct {
				File         string
				Line, Column int
			} `json:"pos"`
			Path    string `json:"path"`
			Message string `json:"message"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, &stdout)
	}
	if got.OK || len(got.Diagnostics) != 1 {
		t.Fatalf("got %+v, want ok false and one diagnostic", got)
	}
	d := got.Diagnostics[0]
	if d.Pos.Line != 18 || d.Path != "classes.web.priority" || !strings.Contains(d.Message, `"urgent"`) {
		t.Errorf("diagnostic = %+v, want line 18, path classes.web.priority, naming \"urgent\"", d)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr not empty: %s", &stderr)
	}
}

// writeFile writes data to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
