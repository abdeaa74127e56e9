// Package gpufleet_test holds the repository's own rules: what a fresh clone
// needs, and what the Makefile promises.
package gpufleet_test

import (
	"bufio"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check/scheduling"
)

// A clone has nothing beside it, so nothing committed may point there.
func TestSelfContained(t *testing.T) {
	outside := []string{"../" + "shared", "DESIGN" + ".md"}
	skip := map[string]bool{".git": true, "out": true, "bin": true, ".cache": true, ".bin": true, ".upstream": true, "node_modules": true}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skip[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, o := range outside {
			if strings.Contains(string(b), o) {
				t.Errorf("%s refers to %s, which a clone does not have", path, o)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Every target a person can run is listed by `make help`.
func TestMakeHelpListsEveryTarget(t *testing.T) {
	f, err := os.Open("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var phony []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), ".PHONY:"); ok {
			for _, f := range strings.Fields(rest) {
				if !strings.Contains(f, "$(") { // the rungs, checked below
					phony = append(phony, f)
				}
			}
		}
	}
	if len(phony) == 0 {
		t.Fatal("no .PHONY targets in the Makefile")
	}
	out, err := exec.Command("make", "--no-print-directory", "help").Output()
	if err != nil {
		t.Fatalf("make help: %v", err)
	}
	rungs, err := filepath.Glob("ladder/*/go.mod")
	if err != nil || len(rungs) == 0 {
		t.Fatalf("no rungs under ladder/: %v", err)
	}
	for _, r := range rungs {
		phony = append(phony, "test-"+filepath.Base(filepath.Dir(r)))
	}
	for _, p := range phony {
		if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(p) + `\s`).Match(out) {
			t.Errorf("make help does not list %q:\n%s", p, out)
		}
	}
}

// The pipeline's stages, in order. A package may depend on the leaves
// (inputs, shared types and wire formats) and on earlier stages, never on a
// later one.
var stages = [][]string{
	{"compiler/load"},
	{"compiler/validate"},
	{"compiler/derive"},
	{"compiler/verify"},
	{"compiler/render", "compiler/encode", "compiler/nodegroup", "compiler/nodegroup/"},
	// The checker's models; what every check shares (findings, stages,
	// the runner); the checks that read the models, a package per
	// component they restate; then the registry that names them all.
	{"compiler/check/sched", "compiler/check/readback", "compiler/check/kueuemodel", "compiler/check/cost"},
	{"compiler/check"},
	{"compiler/check/scheduling", "compiler/check/nodeagents", "compiler/check/provisioning", "compiler/check/resourcequota", "compiler/check/disruption", "compiler/check/queueing"},
	{"compiler/check/registry"},
	{"compiler/report", "compiler/drift"},
	{"compiler/write"},
	// What a change does, from the committed tree to the compiled one.
	{"compiler/plan"},
	{"compiler", "internal/cli"},
}

// After render the stages read the tree: they may depend on the leaves and
// on each other, never on how the tree was made.
var readsTree = map[string]bool{
	"compiler/check/sched": true, "compiler/check/readback": true, "compiler/check/kueuemodel": true, "compiler/check/cost": true, "compiler/check": true,
	"compiler/check/scheduling": true, "compiler/check/nodeagents": true, "compiler/check/provisioning": true,
	"compiler/check/resourcequota": true, "compiler/check/disruption": true, "compiler/check/queueing": true, "compiler/check/registry": true,
	"compiler/report": true, "compiler/drift": true, "compiler/write": true, "compiler/plan": true,
}

const module = "github.com/gpufleet/gpufleet/"

func stageOf(pkg string) int {
	for i, s := range stages {
		for _, p := range s {
			if pkg == p || strings.HasSuffix(p, "/") && strings.HasPrefix(pkg, p) {
				return i
			}
		}
	}
	return -1 // a leaf
}

// TestDependencyRule pins the seams: no package depends on a later stage,
// and check, report and write depend on no stage before them but check.
func TestDependencyRule(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "./compiler/...", "./internal/cli").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		own := stageOf(pkg)
		for _, dep := range fields[1:] {
			if !strings.HasPrefix(dep, module) {
				continue
			}
			dep = strings.TrimPrefix(dep, module)
			ds := stageOf(dep)
			switch {
			case own < 0 && ds >= 0:
				t.Errorf("%s is a leaf but depends on the stage %s", pkg, dep)
			case ds > own && own >= 0:
				t.Errorf("%s depends on %s, a later stage", pkg, dep)
			case readsTree[pkg] && ds >= 0 && !readsTree[dep]:
				t.Errorf("%s reads the tree but depends on %s, which makes it", pkg, dep)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no dependencies listed")
	}
}

// The checker claims kube-scheduler v1.35's semantics (scheduling.SchedulerMinor):
// the modules that judge it must run that minor.
func TestSchedulerMinorPinned(t *testing.T) {
	want := "k8s.io/kubernetes v" + scheduling.SchedulerMinor + "."
	for _, mod := range []string{"ladder/kube-scheduler/go.mod"} {
		b, err := os.ReadFile(mod)
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`(?m)^\s*(require\s+)?` + regexp.QuoteMeta(want) + `\d+\s*$`).Match(b) {
			t.Errorf("%s does not pin %sN: the checker and the modules that judge it disagree on the scheduler", mod, want)
		}
	}
}

// goModPin is the version re's first group finds in the go.mod at mod.
func goModPin(t *testing.T, mod string, re *regexp.Regexp) string {
	t.Helper()
	b, err := os.ReadFile(mod)
	if err != nil {
		t.Fatal(err)
	}
	m := re.FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s does not pin %s", mod, re)
	}
	return string(m[1])
}

// samePins fails unless every go.mod in mods pins the same version.
func samePins(t *testing.T, re *regexp.Regexp, mods ...string) {
	t.Helper()
	first := goModPin(t, mods[0], re)
	for _, mod := range mods[1:] {
		if v := goModPin(t, mod, re); v != first {
			t.Errorf("%s pins %s, %s %s", mods[0], first, mod, v)
		}
	}
}

// The catalog claims karpenter-provider-aws's figures: ladder/karpenter, which
// judges them, must import the release whose CRDs the tree is held to.
func TestKarpenterPinned(t *testing.T) {
	samePins(t, regexp.MustCompile(`(?m)^\s*(?:require\s+)?github\.com/aws/karpenter-provider-aws (v\S+)`),
		"third_party/karpenter/go.mod", "ladder/karpenter/go.mod")
}

// ladder/eksctl judges the tree with eksctl's own code: it must be the
// release whose JSON Schema the tree is held to (third_party/upstream).
func TestEksctlPinned(t *testing.T) {
	schema := goModPin(t, "third_party/upstream/go.mod", regexp.MustCompile(`(?m)^\s*github\.com/eksctl-io/eksctl (v\S+)`))
	code := goModPin(t, "ladder/eksctl/go.mod", regexp.MustCompile(`(?m)^replace github\.com/weaveworks/eksctl => github\.com/eksctl-io/eksctl (v\S+)`))
	if schema != code {
		t.Errorf("third_party/upstream pins eksctl %s, ladder/eksctl %s", schema, code)
	}
}

// ladder/nodeadm judges the catalog with nodeadm at the commit eksctl's
// release builds its AL2023 node groups' bootstrap with (ladder/eksctl requires it
// through eksctl), the one third_party/upstream pins and copies.
func TestNodeadmPinned(t *testing.T) {
	samePins(t, regexp.MustCompile(`(?m)^\s*(?:require\s+)?github\.com/awslabs/amazon-eks-ami/nodeadm (v\S+)`),
		"third_party/upstream/go.mod", "ladder/nodeadm/go.mod", "ladder/eksctl/go.mod")
}

// Every module that judges the checker is a rung under ladder/, with a
// README whose first line `make help` prints: nested modules elsewhere are
// only the pins under third_party/ and e2e's own.
func TestLadder(t *testing.T) {
	mods, err := exec.Command("git", "ls-files", "*go.mod").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	allowed := regexp.MustCompile(`^(go\.mod|ladder/[a-z0-9-]+/go\.mod|third_party/[a-z0-9-]+/go\.mod|e2e/go\.mod|e2e/etcd/go\.mod)$`)
	rungs := 0
	for _, m := range strings.Fields(string(mods)) {
		if !allowed.MatchString(m) {
			t.Errorf("%s: a module that judges the checker is a rung, ladder/<component>/go.mod (docs/architecture.md)", m)
		}
		if !strings.HasPrefix(m, "ladder/") {
			continue
		}
		rungs++
		readme := filepath.Join(filepath.Dir(m), "README.md")
		b, err := os.ReadFile(readme)
		if err != nil {
			t.Errorf("%s: %v (its first line is what make help says of the rung)", m, err)
			continue
		}
		first, _, _ := strings.Cut(string(b), "\n")
		if !regexp.MustCompile(`^# \S.* v?\S*: \S`).MatchString(first) {
			t.Errorf("%s starts %q, not \"# <component> <version>: what it judges\"", readme, first)
		}
	}
	if rungs == 0 {
		t.Error("no rungs under ladder/")
	}
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range strings.Fields(string(mods)) {
		if r, ok := strings.CutPrefix(filepath.Dir(m), "ladder/"); ok && !regexp.MustCompile(`\btest-`+regexp.QuoteMeta(r)+`\b`).Match(ci) {
			t.Errorf(".ci/run does not run the rung %s (make test-%s)", r, r)
		}
	}
}

// One toolchain builds every module (the Makefile's GOTOOLCHAIN), so one
// build cache serves them all: it must be at least what each go.mod needs.
func TestOneToolchain(t *testing.T) {
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^export GOTOOLCHAIN := go(\d+)\.(\d+)\.(\d+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile exports no GOTOOLCHAIN := goX.Y.Z")
	}
	have := [3]int{atoi(t, m[1]), atoi(t, m[2]), atoi(t, m[3])}
	mods, err := exec.Command("git", "ls-files", "*go.mod").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, mod := range strings.Fields(string(mods)) {
		b, err := os.ReadFile(mod)
		if err != nil {
			t.Fatal(err)
		}
		g := regexp.MustCompile(`(?m)^go (\d+)\.(\d+)(?:\.(\d+))?$`).FindSubmatch(b)
		if g == nil {
			t.Errorf("%s has no go line", mod)
			continue
		}
		need := [3]int{atoi(t, g[1]), atoi(t, g[2]), atoi(t, g[3])}
		for i := range need {
			if need[i] != have[i] {
				if need[i] > have[i] {
					t.Errorf("%s needs %s, above the Makefile's GOTOOLCHAIN", mod, g[0])
				}
				break
			}
		}
		if regexp.MustCompile(`(?m)^toolchain `).Match(b) {
			t.Errorf("%s has a toolchain line: the Makefile's GOTOOLCHAIN is the one toolchain", mod)
		}
	}
}

// atoi reads a version part; the patch of a go line may be absent.
func atoi(t *testing.T, b []byte) int {
	t.Helper()
	if len(b) == 0 {
		return 0
	}
	n, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Test helpers are for tests: no package the gpufleet command is built from
// may import one, which TestDependencyRule's stages do not see. Nor Go's
// plugin package, which kustomize's build (krusty) imports: it links the
// whole binary dynamically and exports every symbol, 23 MB more resident
// in every command (docs/performance.md).
var testHelpers = []string{"internal/checkcells", "internal/fleetgen", "internal/testfleet", "internal/testrender", "internal/crdtest", "internal/upstream", "internal/benchrun", "internal/handoff", "internal/runnerlog"}

func TestProductImportsNoTestHelpers(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./cmd/gpufleet").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if fields[0] == "plugin" {
			t.Error("the gpufleet command links Go's plugin package (kustomize's krusty imports it)")
		}
		if !strings.HasPrefix(fields[0], module) {
			continue
		}
		seen++
		for _, imp := range fields[1:] {

			for _, h := range testHelpers {
				if imp == module+h {
					t.Errorf("%s imports the test helper %s", strings.TrimPrefix(fields[0], module), h)
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("go list listed none of gpufleet's packages")
	}
	for _, h := range testHelpers {
		if _, err := os.Stat(h); err != nil {
			t.Errorf("test helper %s: %v (keep testHelpers current)", h, err)
		}
	}
}

// Modules built into one cache share what they compile only where they
// resolve a dependency at the same version: every module any two of them
// require is pinned alike in all, Kubernetes' own at one minor (v0.36,
// k8s.io/kubernetes v1.36) with the AWS SDK beside it. A module's replace
// line by version (the kube-scheduler rung's staging modules, Karpenter's
// k8s.io v0.36 under karpenter-provider-aws's v0.37) is its pin. Raise the
// lower pin with scripts/align-pins.sh when this fails.
var alignedModules = []struct {
	prefix string // "" is every module
	mods   []string
}{
	{"", []string{"go.mod", "ladder/kube-scheduler/go.mod", "ladder/kueue/go.mod", "ladder/karpenter/go.mod", "ladder/eksctl/go.mod", "e2e/go.mod", "e2e/etcd/go.mod", "ladder/device-plugin/go.mod", "ladder/nodeadm/go.mod", "ladder/browser/go.mod", "ladder/workflow/go.mod"}},
}

func TestSharedPinsAligned(t *testing.T) {
	req := regexp.MustCompile(`(?m)^\s*(?:require\s+)?([^\s/]+\.[^\s]+) (v\S+)(?:\s*//.*)?$`)
	rep := regexp.MustCompile(`(?m)^\s*(?:replace\s+)?([^\s/]+\.[^\s]+)(?: v\S+)? => (\S+)(?: (v\S+))?\s*$`)
	for _, group := range alignedModules {
		first := map[string]string{} // module path → "go.mod: version"
		for _, mod := range group.mods {
			b, err := os.ReadFile(mod)
			if err != nil {
				t.Fatal(err)
			}
			// A module replaced by a version of itself is pinned there; one
			// replaced by a directory or another module is its own.
			replaced := map[string]string{}
			for _, m := range rep.FindAllStringSubmatch(string(b), -1) {
				replaced[m[1]] = ""
				if m[2] == m[1] {
					replaced[m[1]] = m[3]
				}
			}
			for _, m := range req.FindAllStringSubmatch(string(b), -1) {
				path, v := m[1], m[2]
				if !strings.HasPrefix(path, group.prefix) {
					continue
				}
				if r, ok := replaced[path]; ok {
					if v = r; v == "" {
						continue
					}
				}
				if f, ok := first[path]; ok && !strings.HasSuffix(f, " "+v) {
					t.Errorf("%s pins %s %s, %s", mod, path, v, f)
				} else if !ok {
					first[path] = mod + " " + v
				}
			}
		}
	}
}
