// Package workflow holds docs/github-actions/gpufleet.yml, the workflow a
// user copies into their GitOps repository, to two real checkers:
// actionlint (its Go API) and GitHub's own workflow parser
// (@actions/workflow-parser from npm, run by parse.mjs under Node.js).
// Each is also shown a copy of the workflow with a deliberate bug, which it
// must report, so a checker that stopped checking fails the test. A third
// check holds the workflow's gpufleet command lines to the CLI's contract.
// scripts/workflow.sh installs the npm package and runs this.
package workflow_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

const workflowFile = "../../docs/github-actions/gpufleet.yml"

// parserVersion is the @actions/workflow-parser that package.json pins.
const parserVersion = "0.3.61"

func readWorkflow(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(workflowFile)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mutant is the workflow with one deliberate bug: the first old replaced
// by new. The test fails if old is not in the workflow, so a bug case
// cannot silently stop applying when the workflow changes.
type mutant struct {
	name, old, new string
	want           string // in the checker's message for it
}

func (m mutant) apply(t *testing.T, src []byte) []byte {
	t.Helper()
	if !bytes.Contains(src, []byte(m.old)) {
		t.Fatalf("%s: the workflow no longer contains %q: update the bug case", m.name, m.old)
	}
	return bytes.Replace(src, []byte(m.old), []byte(m.new), 1)
}

// lint runs actionlint on src as the file name. Shellcheck and Pyflakes
// are empty, which turns actionlint's shellcheck and pyflakes rules off:
// neither binary is installed here or in CI, and actionlint's own rules
// (syntax, expressions and their types, contexts, step outputs, runner
// labels, action inputs, permissions, untrusted input in scripts) run
// without them.
func lint(t *testing.T, name string, src []byte) []*actionlint.Error {
	t.Helper()
	return lintProject(t, "", name, src)
}

func format(errs []*actionlint.Error) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "%s:%d:%d: %s [%s]\n", e.Filepath, e.Line, e.Column, e.Message, e.Kind)
	}
	return b.String()
}

func TestActionlint(t *testing.T) {
	if errs := lint(t, workflowFile, readWorkflow(t)); len(errs) > 0 {
		t.Errorf("actionlint %s:\n%s", workflowFile, format(errs))
	}
}

// Each deliberate bug is one actionlint reports.
func TestActionlintCatchesBugs(t *testing.T) {
	src := readWorkflow(t)
	for _, m := range []mutant{
		{"undefined step", "steps.plan.outcome", "steps.nope.outcome", `property "nope" is not defined in object type`},
		{"unknown runner label", "runs-on: ubuntu-latest", "runs-on: ubuntu-lates", `label "ubuntu-lates" is unknown`},
		{"unknown job key", "timeout-minutes:", "timeout-minute:", `unexpected key "timeout-minute" for "job" section`},
		{"unknown action input", "go-version:", "go_version:", `input "go_version" is not defined in action "actions/setup-go@v6"`},
		{"unknown action output", "steps.page.outputs.artifact-url", "steps.page.outputs.artifact_url", `property "artifact_url" is not defined`},
		{"untrusted input in a script", "run: gpufleet diff", `run: echo "${{ github.event.pull_request.title }}"; gpufleet diff`, `"github.event.pull_request.title" is potentially untrusted`},
	} {
		t.Run(m.name, func(t *testing.T) {
			errs := lint(t, "gpufleet.yml", m.apply(t, src))
			got := format(errs)
			if !strings.Contains(got, m.want) {
				t.Errorf("actionlint did not report %q; it said:\n%s", m.want, got)
			}
			t.Logf("caught: %s", strings.TrimSpace(got))
		})
	}
}

// parse runs GitHub's parser (parse.mjs) on file, returning its output and
// exit code. Node.js and the npm package must be there: a missing one
// fails the test, never skips it.
func parse(t *testing.T, file string) (string, int) {
	t.Helper()
	const install = "run scripts/workflow.sh from the repository root (npm ci in ladder/workflow)"
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH: install Node.js 20 or later, then %s", install)
	}
	b, err := os.ReadFile("node_modules/@actions/workflow-parser/package.json")
	if err != nil {
		t.Fatalf("GitHub's workflow parser is not installed (%v): %s", err, install)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(b, &pkg); err != nil || pkg.Version != parserVersion {
		t.Fatalf("node_modules has @actions/workflow-parser %q, package.json pins %s (%v): %s", pkg.Version, parserVersion, err, install)
	}
	out, err := exec.Command(node, "parse.mjs", file).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatalf("node parse.mjs %s: %v\n%s", file, err, out)
	}
	return string(out), 0
}

func TestGitHubParser(t *testing.T) {
	if out, code := parse(t, workflowFile); code != 0 {
		t.Errorf("GitHub's parser rejects %s (exit %d):\n%s", workflowFile, code, out)
	}
}

// Each deliberate bug is one GitHub's parser reports, as GitHub would
// when the workflow is pushed.
func TestGitHubParserCatchesBugs(t *testing.T) {
	src := readWorkflow(t)
	for _, m := range []mutant{
		{"unknown job key", "timeout-minutes:", "timeout-minute:", "Unexpected value 'timeout-minute'"},
		{"bad permission", "pull-requests: write", "pull-requests: writ", "Unexpected value 'writ'"},
		{"bad expression", "steps.plan.outcome ==", "steps.plan.outcome == ==", "Unexpected symbol: '=='"},
		{"needs an unknown job", "    runs-on: ubuntu-latest", "    needs: lint\n    runs-on: ubuntu-latest", "The workflow must contain at least one job with no dependencies."},
	} {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel() // half a second of Node.js start-up each
			file := filepath.Join(t.TempDir(), "gpufleet.yml")
			if err := os.WriteFile(file, m.apply(t, src), 0o644); err != nil {
				t.Fatal(err)
			}
			out, code := parse(t, file)
			if code != 1 || !strings.Contains(out, m.want) {
				t.Errorf("GitHub's parser: exit %d, want 1 and %q; it said:\n%s", code, m.want, out)
			}
			t.Logf("caught: %s", strings.TrimSpace(out))
		})
	}
}

// The gpufleet CLI's contract, for the commands the workflow may use: the
// formats each accepts, its boolean flags, and whether -o DIR is required.
var contract = map[string]struct {
	formats []string
	bools   []string
	out     string // "required", "allowed" or ""
	noSpec  bool   // takes no SPEC (version)
}{
	"plan":    {[]string{"text", "markdown", "json", "github"}, []string{"--exit-code", "--fail-disruptive"}, "required", false},
	"diff":    {[]string{"text", "json", "github"}, nil, "required", false},
	"build":   {[]string{"text", "json", "github"}, nil, "allowed", false},
	"check":   {[]string{"text", "json", "github", "sarif"}, nil, "", false},
	"vet":     {[]string{"text", "json", "github", "sarif"}, nil, "", false},
	"version": {nil, nil, "", true},
}

// command is one gpufleet invocation: subcommand, specs, flags.
type command struct {
	sub    string
	specs  []string
	out    string
	format string
	bools  []string
}

// invocation is gpufleet as a command word: at the start of a line or
// after an operator, a subshell or a keyword, behind any assignments.
var invocation = regexp.MustCompile(`(?:^|[;&|(]|\bthen|\bdo|\belse|!)\s*(?:\w+=\S*\s+)*gpufleet\s+(.*)`)

// gpufleetCommands finds the gpufleet invocations in a run script: a
// command word gpufleet, up to the first shell operator, redirection or
// comment. Continued lines are joined first. A simple parse, for the
// simple scripts of the workflow, not a shell's.
func gpufleetCommands(script string) []string {
	var cmds []string
	for _, line := range strings.Split(strings.ReplaceAll(script, "\\\n", " "), "\n") {
		m := invocation.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rest := m[1]
		if i := strings.IndexAny(rest, "<>|&;#)"); i >= 0 {
			rest = rest[:i]
		}
		cmds = append(cmds, "gpufleet "+strings.TrimSpace(rest))
	}
	return cmds
}

// checkCommand parses one gpufleet command line against the contract.
func checkCommand(line string) (command, error) {
	words := strings.Fields(strings.NewReplacer(`"`, "", `'`, "").Replace(line))
	if len(words) < 2 || words[0] != "gpufleet" {
		return command{}, fmt.Errorf("not a gpufleet command")
	}
	c := command{sub: words[1]}
	spec, ok := contract[c.sub]
	if !ok {
		return c, fmt.Errorf("unknown subcommand %q", c.sub)
	}
	args := words[2:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case !strings.HasPrefix(a, "-"):
			c.specs = append(c.specs, a)
		case name == "-o" || name == "--output" || name == "--format":
			if !hasValue {
				if i+1 == len(args) {
					return c, fmt.Errorf("%s needs a value", name)
				}
				i++
				value = args[i]
			}
			if name == "--format" {
				if !slices.Contains(spec.formats, value) {
					return c, fmt.Errorf("gpufleet %s has no --format %s (it has %s)", c.sub, value, strings.Join(spec.formats, ", "))
				}
				c.format = value
			} else {
				if spec.out == "" {
					return c, fmt.Errorf("gpufleet %s takes no %s", c.sub, name)
				}
				c.out = value
			}
		case slices.Contains(spec.bools, a):
			c.bools = append(c.bools, a)
		default:
			return c, fmt.Errorf("gpufleet %s has no flag %s", c.sub, a)
		}
	}
	if len(c.specs) == 0 && !spec.noSpec {
		return c, fmt.Errorf("gpufleet %s needs a SPEC", c.sub)
	}
	if len(c.specs) > 0 && spec.noSpec {
		return c, fmt.Errorf("gpufleet %s takes no arguments", c.sub)
	}
	if spec.out == "required" && c.out == "" {
		return c, fmt.Errorf("gpufleet %s needs -o DIR", c.sub)
	}
	return c, nil
}

// runScripts returns each run: script of the workflow, with its step's name.
func runScripts(t *testing.T, src []byte) map[string]string {
	t.Helper()
	w, errs := actionlint.Parse(src)
	if len(errs) > 0 {
		t.Fatalf("actionlint.Parse:\n%s", format(errs))
	}
	scripts := map[string]string{}
	for id, j := range w.Jobs {
		for i, s := range j.Steps {
			if r, ok := s.Exec.(*actionlint.ExecRun); ok && r.Run != nil {
				name := fmt.Sprintf("jobs.%s.steps[%d]", id, i)
				if s.Name != nil {
					name += " (" + s.Name.Value + ")"
				}
				scripts[name] = r.Run.Value
			}
		}
	}
	return scripts
}

// Every gpufleet command line in the workflow is one the CLI accepts, and
// the three the workflow is for are there: the stale-tree check, and the
// plan against the base branch's tree as Markdown and as annotations.
func TestGpufleetCommands(t *testing.T) {
	var cmds []command
	for step, script := range runScripts(t, readWorkflow(t)) {
		for _, line := range gpufleetCommands(script) {
			c, err := checkCommand(line)
			if err != nil {
				t.Errorf("%s: %q: %v", step, line, err)
			}
			cmds = append(cmds, c)
		}
	}
	has := func(sub, format, outPrefix string) bool {
		return slices.ContainsFunc(cmds, func(c command) bool {
			return c.sub == sub && c.format == format && strings.HasPrefix(c.out, outPrefix)
		})
	}
	for _, w := range []struct{ sub, format, out, why string }{
		{"diff", "github", "gitops/", "fail on a stale committed tree"},
		{"plan", "markdown", "base/", "the plan comment, against the base branch's tree"},
		{"plan", "github", "base/", "annotations and the job summary, against the base branch's tree"},
	} {
		if !has(w.sub, w.format, w.out) {
			t.Errorf("no `gpufleet %s ... -o %s... --format %s` (%s) in %v", w.sub, w.out, w.format, w.why, cmds)
		}
	}
}

// The command check rejects what the contract does not have.
func TestGpufleetCommandsCatchBugs(t *testing.T) {
	for _, c := range []struct{ script, want string }{
		{"gpufleet apply fleet/ -o gitops/fleet", `unknown subcommand "apply"`},
		{"gpufleet plan fleet/ --out base/gitops/fleet", "gpufleet plan has no flag --out"},
		{"gpufleet plan fleet/ -o base/gitops/fleet --format html > plan.md", "gpufleet plan has no --format html"},
		{"gpufleet plan fleet/ --format markdown", "gpufleet plan needs -o DIR"},
		{"gpufleet diff -o gitops/fleet", "gpufleet diff needs a SPEC"},
		{"gpufleet diff fleet/ -o gitops/fleet --exit-code", "gpufleet diff has no flag --exit-code"},
		{"x=1; gpufleet check fleet/ -o out \\\n  --format github", "gpufleet check takes no -o"},
		{"if true; then GOGC=400 gpufleet vet; fi", "gpufleet vet needs a SPEC"},
	} {
		lines := gpufleetCommands(c.script)
		if len(lines) != 1 {
			t.Errorf("%q: found %d gpufleet commands, want 1", c.script, len(lines))
			continue
		}
		if _, err := checkCommand(lines[0]); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.script, err, c.want)
		}
	}
	for _, ok := range []string{
		`go install "github.com/gpufleet/gpufleet/cmd/gpufleet@${GPUFLEET_VERSION}"`,
		"echo gpufleet-plan",
		"{ echo '<!-- gpufleet plan -->'; cat plan.md; } > comment.md",
	} {
		if lines := gpufleetCommands(ok); len(lines) != 0 {
			t.Errorf("%q is no gpufleet command, found %q", ok, lines)
		}
	}
}

// What keeps the workflow safe on strangers' pull requests, beyond what
// actionlint checks: the pull_request event only (never
// pull_request_target, which runs with a write token and secrets), the
// two permissions it needs, no ${{ }} in a script (values come in by env),
// actions at a major tag or a commit, and checkouts that leave no token in
// .git.
func hardening(t *testing.T, src []byte) []string {
	t.Helper()
	w, errs := actionlint.Parse(src)
	if len(errs) > 0 {
		t.Fatalf("actionlint.Parse:\n%s", format(errs))
	}
	var bad []string
	for _, e := range w.On {
		if e.EventName() != "pull_request" {
			bad = append(bad, fmt.Sprintf("on: %s; want pull_request only", e.EventName()))
		}
	}
	perms := map[string]string{}
	if w.Permissions != nil && w.Permissions.All == nil {
		for name, s := range w.Permissions.Scopes {
			perms[name] = s.Value.Value
		}
	}
	if want := map[string]string{"contents": "read", "pull-requests": "write"}; fmt.Sprint(perms) != fmt.Sprint(want) {
		bad = append(bad, fmt.Sprintf("permissions %v, want %v", perms, want))
	}
	pinned := regexp.MustCompile(`^[\w.-]+/[\w.-]+@(v\d+|[0-9a-f]{40})$`)
	for id, j := range w.Jobs {
		if j.Permissions != nil {
			bad = append(bad, fmt.Sprintf("job %s sets its own permissions", id))
		}
		for i, s := range j.Steps {
			switch e := s.Exec.(type) {
			case *actionlint.ExecRun:
				if strings.Contains(e.Run.Value, "${{") {
					bad = append(bad, fmt.Sprintf("jobs.%s.steps[%d]: ${{ }} in a run script; pass values by env", id, i))
				}
			case *actionlint.ExecAction:
				uses := e.Uses.Value
				if !pinned.MatchString(uses) {
					bad = append(bad, fmt.Sprintf("jobs.%s.steps[%d]: uses %s, want a major tag or a commit", id, i, uses))
				}
				if p, ok := e.Inputs["persist-credentials"]; strings.HasPrefix(uses, "actions/checkout@") && (!ok || p.Value.Value != "false") {
					bad = append(bad, fmt.Sprintf("jobs.%s.steps[%d]: checkout without persist-credentials: false", id, i))
				}
			}
		}
	}
	return bad
}

func TestHardening(t *testing.T) {
	for _, b := range hardening(t, readWorkflow(t)) {
		t.Error(b)
	}
}

func TestHardeningCatchesBugs(t *testing.T) {
	src := readWorkflow(t)
	for _, m := range []mutant{
		{"pull_request_target", "  pull_request:", "  pull_request_target:", "on: pull_request_target; want pull_request only"},
		{"more permissions", "  contents: read", "  contents: write", "permissions map[contents:write pull-requests:write]"},
		{"expression in a script", `"$PR" --body-file`, `${{ github.event.pull_request.number }} --body-file`, "${{ }} in a run script"},
		{"unpinned action", "actions/setup-go@v6", "actions/setup-go@main", "uses actions/setup-go@main, want a major tag or a commit"},
		{"token left in .git", "gitops/fleet\n          persist-credentials: false\n", "gitops/fleet\n", "checkout without persist-credentials: false"},
	} {
		got := strings.Join(hardening(t, m.apply(t, src)), "\n")
		if !strings.Contains(got, m.want) {
			t.Errorf("%s: want %q, got:\n%s", m.name, m.want, got)
		}
	}
}
