package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/drift"
	"github.com/gpufleet/gpufleet/internal/runnerlog"
)

// GitHub Actions reads workflow commands from every line a step prints,
// on stdout and stderr (internal/runnerlog models how). CI runs gpufleet
// on strangers' pull requests, whose spec values, spec file names, live
// node names and committed files reach its output. FuzzRunnerCommands
// pushes a hostile string through each of them, runs every command in
// every format on it, and reads stdout and stderr with the runner's
// model: the only commands it may find are the ones gpufleet meant
// (ghMeant: the github format's annotations, and the fence around a
// diff), each where gpufleet printed it.

// hostileSeeds are the runner's ways in: a CR that starts a line, the
// "::" form at a line's start after any white space, the legacy "##["
// form anywhere, stop-commands, and runes the runner's culture-sensitive
// search looks through.
var hostileSeeds = []string{
	"x\r::error::pwned",
	"x\r::add-mask::secret",
	"x\r::stop-commands::tok3n",
	"##[stop-commands]tok3n",
	"a ##[error]pwned",
	"##[set-output name=x]y",
	"::error::line-initial",
	" ::warning::after a space",
	"\u00a0::warning::after NBSP",
	"\u00ad::error::after a soft hyphen",
	"#\u00ad#[error]through a soft hyphen",
	":\u200d:error::through a ZWJ",
	"\u2028::error::after LS",
	"\x00::error::after NUL",
	"x\r\n::error::CR LF",
	"\xff\xfe::error::bad UTF-8",
	"%0A::error::escaped LF",
	"x\r  ##[endgroup]",
	"\u0301::error::after a mark",
	"x\u0085::error::after NEL",
	"\x1b]52;c;cHduZWQ=\x07 OSC 52, a clipboard write",
	"\x1b]0;title\x1b\\ OSC 0, ended by ST",
	"\x1b[2J\x1b[H\a clear the screen",
	"\u009b31m\u009d0;C1 title\u009c",
}

func FuzzRunnerCommands(f *testing.F) {
	for _, s := range hostileSeeds {
		f.Add(s)
	}
	base := newRunnerFixture(f)
	f.Fuzz(func(t *testing.T, h string) {
		if len(h) > 4096 {
			return
		}
		base.check(t, h)
	})
}

// runnerFixture is what every hostile string starts from: a valid fleet
// (JSON, so any string can go in it), its built tree, and the nodes its
// pools launch.
type runnerFixture struct {
	fleet map[string]any
	tree  string
	nodes []corev1.Node
}

func validFleetMap() map[string]any {
	return map[string]any{
		"cluster":    map[string]any{"provider": "eks", "name": "demo", "region": "us-east-1", "version": "1.36", "zones": []string{"us-east-1a", "us-east-1b"}},
		"priorities": map[string]any{"p": map[string]any{"value": 1}},
		"pools":      map[string]any{"general": map[string]any{"instanceTypes": []string{"m7i.large"}, "size": map[string]any{"min": 1, "max": 3}}},
		"classes":    map[string]any{"web": map[string]any{"priority": "p", "resources": map[string]any{"cpu": "500m"}}},
		"tenants":    map[string]any{"team": map[string]any{"namespaces": []string{"team"}, "classes": []string{"web"}}},
	}
}

func newRunnerFixture(f *testing.F) *runnerFixture {
	dir := f.TempDir()
	x := &runnerFixture{fleet: validFleetMap(), tree: filepath.Join(dir, "tree")}
	spec := writeJSONFile(f, dir, "fleet.json", x.fleet)
	if code, _, e := run("build", spec, "-o", x.tree); code != ExitOK {
		f.Fatalf("build: exit %d\n%s", code, e)
	}
	res, err := compiler.Compile([]string{spec})
	if err != nil {
		f.Fatal(err)
	}
	cl, err := res.Cluster()
	if err != nil {
		f.Fatal(err)
	}
	x.nodes = drift.Launched(cl)
	return x
}

func writeJSONFile(tb testing.TB, dir, name string, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// fileName makes h part of a file name: no '/' or NUL, and short.
func fileName(h string) string {
	n := strings.Map(func(r rune) rune {
		if r == '/' || r == 0 {
			return '_'
		}
		return r
	}, h)
	if len(n) > 180 {
		n = n[:180]
	}
	return n
}

var (
	everyFormat = []string{formatText, formatJSON, formatGitHub}
	findFormats = []string{formatText, formatJSON, formatGitHub, formatSARIF}
)

func (x *runnerFixture) check(t *testing.T, h string) {
	dir := t.TempDir()
	runs := 0
	try := func(args ...string) {
		t.Helper()
		runs++
		runnerReads(t, h, args...)
	}

	// Spec values in errors, and the spec file's name at the start of
	// each error line: an undefined priority, a label key and value, a
	// namespace.
	bad := validFleetMap()
	bad["classes"].(map[string]any)["web"].(map[string]any)["priority"] = h
	bad["pools"].(map[string]any)["general"].(map[string]any)["labels"] = map[string]string{h: h, "example.com/x": h}
	bad["tenants"].(map[string]any)["team"].(map[string]any)["namespaces"] = []string{h}
	badSpec := writeJSONFile(t, dir, "fleet"+fileName(h)+".json", bad)
	for _, format := range findFormats {
		try("vet", badSpec, "--format", format)
		try("check", badSpec, "--format", format)
	}
	for _, format := range everyFormat {
		try("build", badSpec, "-o", filepath.Join(dir, "new"), "--format", format)
		try("diff", badSpec, "-o", x.tree, "--format", format)
	}

	// A committed file's content: diff and build --check print it.
	spec := writeJSONFile(t, dir, "fleet.json", x.fleet)
	out := filepath.Join(dir, "out")
	if err := os.CopyFS(out, os.DirFS(x.tree)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "kustomization.yaml"), []byte(h+"\n"+h), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range everyFormat {
		try("diff", spec, "-o", out, "--format", format)
		try("build", spec, "-o", out, "--check", "--format", format)
	}

	// Live node names, label keys and values, taint keys: drift and
	// check --nodes print them.
	nodes := slices.Clone(x.nodes)
	n := nodes[0].DeepCopy()
	n.Name = h
	n.Labels[h] = "v"
	n.Labels["example.com/x"] = h
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: h, Value: h, Effect: corev1.TaintEffectNoSchedule})
	nodes[0] = *n
	nodes = append(nodes, corev1.Node{ObjectMeta: nodes[0].ObjectMeta})
	nodes[len(nodes)-1].Name = h + "-2"
	nodes[len(nodes)-1].Labels = map[string]string{"x": h}
	nodesFile := writeJSONFile(t, dir, "nodes.json", drift.NodeList(nodes))
	for _, format := range findFormats {
		try("drift", spec, "--nodes", nodesFile, "--format", format)
	}
	for _, format := range everyFormat {
		try("check", spec, "--nodes", nodesFile, "--format", format)
	}
	x.checkPlan(t, h, dir, spec, try)
	if runs == 0 {
		t.Fatal("ran nothing")
	}
}

// runnerReads runs gpufleet and reads its stdout and stderr with the
// runner's model: the commands the runner runs must be exactly those
// gpufleet meant, in order, and only on stdout; a JSON document must
// stay valid JSON.
func runnerReads(t *testing.T, h string, args ...string) {
	t.Helper()
	var meant []string
	ghMeant = func(line string) { meant = append(meant, strings.ToValidUTF8(line, "\uFFFD")) }
	defer func() { ghMeant = nil }()
	_, stdout, stderr := run(args...)
	var ran []string
	for _, c := range runnerlog.Read([]byte(stdout)) {
		ran = append(ran, c.Line)
	}
	if !slices.Equal(ran, meant) {
		t.Errorf("gpufleet %q with %q: the runner runs\n  %q\nbut gpufleet meant\n  %q\nstdout:\n%s\nstderr:\n%s", args, h, ran, meant, clip(stdout), clip(stderr))
	}
	for _, c := range runnerlog.Read([]byte(stderr)) {
		t.Errorf("gpufleet %q with %q: the runner runs %s%s from stderr line %q\nstderr:\n%s", args, h, c.Form, c.Name, c.Line, clip(stderr))
	}
	for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if i := terminalControl(out); i >= 0 {
			t.Errorf("gpufleet %q with %q: %s holds a terminal control at byte %d: %q", args, h, name, i, clip(out[max(0, i-40):]))
		}
	}
	if f := args[len(args)-1]; (f == formatJSON || f == formatSARIF) && stdout != "" && !json.Valid([]byte(stdout)) {
		t.Errorf("gpufleet %q with %q: stdout is not JSON:\n%s", args, h, clip(stdout))
	}
}

// terminalControl is the offset of the first byte a terminal may act on
// rather than print (C0 but tab and LF, DEL, C1, or a byte that is not
// UTF-8, which some terminals read as C1), or -1: a developer's terminal
// shows the output through the pre-commit hook, and ESC or a C1 control
// starts a sequence (OSC 52 writes the clipboard, OSC 0 the title).
func terminalControl(s string) int {
	for i, r := range s {
		if r == utf8.RuneError || r < ' ' && r != '\t' && r != '\n' || r >= 0x7f && r <= 0x9f {
			if _, n := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || n == 1 {
				return i
			}
		}
	}
	return -1
}

// clip shortens output for a failure's message.
func clip(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "\n[...]"
	}
	return s
}

// FuzzLogText holds the escapes themselves to the runner's model, fast:
// a hostile string through logLine (alone, or between gpufleet's own
// words) or diffLine stays one line in which the runner finds no command
// of any name, and through jsonSafe stays one JSON line the runner finds
// none in and that decodes to the same string.
func FuzzLogText(f *testing.F) {
	for _, s := range hostileSeeds {
		f.Add(s)
	}
	any := func(string) bool { return true }
	f.Fuzz(func(t *testing.T, s string) {
		for _, line := range []string{
			logLine(s), "  " + logLine(s), "gpufleet: " + logLine(s) + ": x", logLine(s) + ": " + logLine(s),
			diffLine(s), diffLine(" " + s), diffLine("+" + s),
		} {
			lines := runnerlog.Lines([]byte(line))
			if len(lines) > 1 {
				t.Fatalf("%q printed as %q: %d lines", s, line, len(lines))
			}
			for _, l := range lines {
				if c, ok := runnerlog.Parse(l, any); ok {
					t.Fatalf("%q printed as %q: the runner reads %s%s", s, line, c.Form, c.Name)
				}
			}
		}
		doc, err := json.Marshal(map[string]string{"k": s})
		if err != nil {
			t.Fatal(err)
		}
		safe := jsonSafe(doc)
		if c, ok := runnerlog.Parse(string(safe), any); ok || len(runnerlog.Lines(safe)) != 1 {
			t.Fatalf("%q in JSON as %q: the runner reads %s%s", s, safe, c.Form, c.Name)
		}
		var back map[string]string
		if err := json.Unmarshal(safe, &back); err != nil || back["k"] != string([]rune(s)) {
			t.Fatalf("%q in JSON as %q decodes to %q (%v)", s, safe, back["k"], err)
		}
	})
}
