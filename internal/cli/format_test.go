package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/diag"
)

func TestGitHubEscaping(t *testing.T) {
	for _, tc := range []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"50%", "50%25", "50%25"},
		{"%0A", "%250A", "%250A"}, // an escape sequence in the input stays literal
		{"a\nb\r\nc", "a%0Ab%0D%0Ac", "a%0Ab%0D%0Ac"},
		{"a:b,c", "a:b,c", "a%3Ab%2Cc"},
		{"::error::x", "::error::x", "%3A%3Aerror%3A%3Ax"},
	} {
		if got := ghEscapeData(tc.in); got != tc.data {
			t.Errorf("ghEscapeData(%q) = %q, want %q", tc.in, got, tc.data)
		}
		if got := ghEscapeProperty(tc.in); got != tc.prop {
			t.Errorf("ghEscapeProperty(%q) = %q, want %q", tc.in, got, tc.prop)
		}
	}
}

func TestGitHubCommand(t *testing.T) {
	for _, tc := range []struct {
		level string
		pos   diag.Pos
		title string
		msg   string
		want  string
	}{
		{"error", diag.Pos{File: "fleets/a,b/fleet.cue", Line: 3, Column: 7}, "gpufleet CPUOnGPU", "two\nlines: 100%",
			"::error file=fleets/a%2Cb/fleet.cue,line=3,col=7,title=gpufleet CPUOnGPU::two%0Alines: 100%25"},
		{"warning", diag.Pos{}, "gpufleet PriorityOrder", "m", "::warning title=gpufleet PriorityOrder::m"},
		{"error", diag.Pos{File: "f.yaml"}, "t:x", "m", "::error file=f.yaml,title=t%3Ax::m"},
		{"error", diag.Pos{File: "f.yaml", Line: 2}, "", "m", "::error file=f.yaml,line=2::m"},
	} {
		if got := ghCommand(tc.level, tc.pos, tc.title, tc.msg); got != tc.want {
			t.Errorf("ghCommand = %q\nwant        %q", got, tc.want)
		}
	}
	// Whatever the message, one annotation is one line.
	var b bytes.Buffer
	writeGitHubFindings(&b, &check.Report{Findings: []check.Finding{
		{Severity: check.Error, Check: "X", Message: "a\nb\rc"},
		{Severity: check.Warning, Check: "Y", Message: "d"},
	}})
	if lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n"); len(lines) != 2 ||
		!strings.HasPrefix(lines[0], "::error ") || !strings.HasPrefix(lines[1], "::warning ") {
		t.Errorf("annotations:\n%s", b.String())
	}
}

func TestSARIFShape(t *testing.T) {
	findings := []check.Finding{
		{Severity: check.Warning, Check: "PriorityOrder", Message: "w", Pos: diag.Pos{File: "fleet.cue", Line: 9, Column: 2}},
		{Severity: check.Error, Check: "CPUOnGPU", Message: "e", Pos: diag.Pos{File: filepath.Join("fleets", "x", "fleet.cue"), Line: 3, Column: 5}},
		{Severity: check.Error, Check: "CPUOnGPU", Message: "no position"},
	}
	var b bytes.Buffer
	if err := writeSARIF(&b, sarifFindings(&check.Report{Findings: findings})); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region *struct {
							StartLine   int `json:"startLine"`
							StartColumn int `json:"startColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-2.1.0") || len(log.Runs) != 1 {
		t.Fatalf("not one SARIF 2.1.0 run:\n%s", b.String())
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "gpufleet" {
		t.Errorf("driver name %q", run.Tool.Driver.Name)
	}
	var ids []string
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
	}
	if strings.Join(ids, ",") != "CPUOnGPU,PriorityOrder" {
		t.Errorf("rules %v, want each check once, sorted", ids)
	}
	if len(run.Results) != 3 {
		t.Fatalf("%d results, want 3", len(run.Results))
	}
	for _, r := range run.Results {
		if ids[r.RuleIndex] != r.RuleID {
			t.Errorf("result %s has ruleIndex %d, which is %s", r.RuleID, r.RuleIndex, ids[r.RuleIndex])
		}
	}
	// Sorted by position: no position first, then by file.
	r0, r1, r2 := run.Results[0], run.Results[1], run.Results[2]
	if r0.Message.Text != "no position" || len(r0.Locations) != 0 {
		t.Errorf("result 0: %+v", r0)
	}
	if r1.Level != "warning" || r1.Locations[0].PhysicalLocation.ArtifactLocation.URI != "fleet.cue" {
		t.Errorf("result 1: %+v", r1)
	}
	loc := r2.Locations[0].PhysicalLocation
	if r2.Level != "error" || loc.ArtifactLocation.URI != "fleets/x/fleet.cue" || loc.Region == nil ||
		loc.Region.StartLine != 3 || loc.Region.StartColumn != 5 {
		t.Errorf("result 2: %+v", r2)
	}

	// Deterministic: the same findings in another order give the same bytes.
	rev := []check.Finding{findings[2], findings[0], findings[1]}
	var b2 bytes.Buffer
	if err := writeSARIF(&b2, sarifFindings(&check.Report{Findings: rev})); err != nil {
		t.Fatal(err)
	}
	if b.String() != b2.String() {
		t.Errorf("SARIF depends on the order of findings")
	}
}

func TestSARIFURI(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if got := sarifURI(filepath.Join(wd, "sub", "f.cue")); got != "sub/f.cue" {
		t.Errorf("below the working directory: %q, want sub/f.cue", got)
	}
	if got := sarifURI(filepath.Join("a", "b.cue")); got != "a/b.cue" {
		t.Errorf("relative: %q", got)
	}
	for file, want := range map[string]string{
		"a b/c#d?.cue": "a%20b/c%23d%3F.cue",
		"50%.cue":      "50%25.cue",
		"x:y.cue":      "./x:y.cue",
		"d/x:y.cue":    "d/x:y.cue",
	} {
		if got := sarifURI(filepath.FromSlash(file)); got != want {
			t.Errorf("%q: %q, want %q", file, got, want)
		}
	}
	if got, want := sarifURI(filepath.Join(filepath.Dir(filepath.Dir(wd)), "a b.cue")), "%20b.cue"; !strings.HasPrefix(got, "file:///") || !strings.HasSuffix(got, want) {
		t.Errorf("outside, with a space: %q, want a file URI ending in %s", got, want)
	}
	outside := filepath.Join(filepath.Dir(filepath.Dir(wd)), "f.cue")
	if got := sarifURI(outside); !strings.HasPrefix(got, "file:///") {
		t.Errorf("outside the working directory: %q, want a file URI", got)
	}
	if got := sarifDiags(diag.List{{Pos: diag.Pos{File: "f.cue", Line: 1, Column: 1}, Path: "a.b", Msg: "bad"}}); got.Runs[0].Results[0].Message.Text != "a.b: bad" ||
		got.Runs[0].Results[0].RuleID != "spec" {
		t.Errorf("spec error result: %+v", got.Runs[0].Results[0])
	}
}

func TestColor(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	var buf bytes.Buffer
	if colorAllowed(&buf, env(nil)) {
		t.Error("colour on a buffer")
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if colorAllowed(f, env(nil)) {
		t.Error("colour on a regular file")
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		if !colorAllowed(tty, env(nil)) {
			t.Error("no colour on a terminal")
		}
		if colorAllowed(tty, env(map[string]string{"NO_COLOR": ""})) || colorAllowed(tty, env(map[string]string{"NO_COLOR": "1"})) {
			t.Error("colour with NO_COLOR set")
		}
		if colorAllowed(tty, env(map[string]string{"TERM": "dumb"})) {
			t.Error("colour with TERM=dumb")
		}
	}
	fd := check.Finding{Severity: check.Error, Check: "C", Message: "m", Pos: diag.Pos{File: "f.cue", Line: 1, Column: 2}}
	if got := findingLine(fd, false); got != fd.String() {
		t.Errorf("plain line %q, want %q", got, fd.String())
	}
	if got := findingLine(fd, true); got != "f.cue:1:2: \x1b[31merror\x1b[0m: C: m" {
		t.Errorf("coloured line %q", got)
	}
	if got := severityWord(check.Warning, true); got != "\x1b[33mwarning\x1b[0m" {
		t.Errorf("coloured warning %q", got)
	}
}

// TestInitStarterChecks: the starter fleet compiles and the checker finds
// nothing, not even a warning.
func TestInitStarterChecks(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := Run([]string{"init", dir}, &out, &errb); code != ExitOK {
		t.Fatalf("init: exit %d\n%s", code, errb.String())
	}
	res, err := compiler.Compile([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Report.Findings); n != 0 {
		t.Errorf("starter fleet has %d findings: %v", n, res.Report.Findings)
	}
	s := summarize(res)
	if s.Pools != 3 || s.Classes < 2 || s.Tenants != 2 || s.Priorities < 2 {
		t.Errorf("starter fleet: %s", s)
	}
	if code := Run([]string{"init", dir}, &out, &errb); code != ExitInvalid {
		t.Errorf("init over an existing fleet.cue: exit %d, want %d", code, ExitInvalid)
	}
	if code := Run([]string{"init", "--force", dir}, &out, &errb); code != ExitOK {
		t.Errorf("init --force: exit %d", code)
	}
}
