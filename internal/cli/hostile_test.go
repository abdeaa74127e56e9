package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// CI runs gpufleet on strangers' pull requests, and the committed tree
// arrives with the spec: these tests plant in it what a stranger could.

const secret = "SECRET=hunter2"

// hostileFleet builds the demo fleet into dir/out and returns the spec,
// out, and dir/outside, a directory holding a secret.
func hostileFleet(t *testing.T) (spec, out, outside string) {
	t.Helper()
	dir := t.TempDir()
	spec = writeDemoFleet(t, dir)
	out, outside = filepath.Join(dir, "out"), filepath.Join(dir, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.env"), []byte(secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, e := run("build", spec, "-o", out); code != ExitOK {
		t.Fatalf("build: exit %d\n%s", code, e)
	}
	return spec, out, outside
}

func run(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Run(args, &o, &e)
	return code, o.String(), e.String()
}

func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.RemoveAll(name); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// diff and build --check report a link in the tree as a difference and
// never print what it points to.
func TestDiffDoesNotFollowSymlinks(t *testing.T) {
	spec, out, outside := hostileFleet(t)
	link(t, filepath.Join(outside, "secret.env"), filepath.Join(out, "kustomization.yaml"))
	for _, cmd := range [][]string{
		{"diff", spec, "-o", out},
		{"build", spec, "-o", out, "--check"},
		{"diff", spec, "-o", out, "--format", "json"},
		{"diff", spec, "-o", out, "--format", "github"},
	} {
		code, stdout, stderr := run(cmd...)
		if code != ExitFindings {
			t.Errorf("%v: exit %d, want 1\n%s", cmd, code, stderr)
		}
		if strings.Contains(stdout+stderr, "SECRET") {
			t.Errorf("%v printed the link's target:\n%s%s", cmd, stdout, stderr)
		}
		if !strings.Contains(stdout, "kustomization.yaml: is a symbolic link, gpufleet writes a regular file") &&
			!strings.Contains(stdout, `"reason": "is a symbolic link, gpufleet writes a regular file"`) {
			t.Errorf("%v does not report the link:\n%s", cmd, stdout)
		}
	}
}

// build refuses to write through a linked directory in the tree: exit 2,
// the path named, nothing written on either side of the link.
func TestBuildRefusesSymlinkedDir(t *testing.T) {
	spec, out, outside := hostileFleet(t)
	link(t, outside, filepath.Join(out, "cluster"))
	before, _ := os.ReadFile(filepath.Join(out, "kustomization.yaml"))
	if err := os.WriteFile(spec, bytes.Replace(mustRead(t, spec), []byte("max: 3"), []byte("max: 4"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run("build", spec, "-o", out)
	if code != ExitInvalid || !strings.Contains(stderr, filepath.Join(out, "cluster")+" is a symbolic link") {
		t.Errorf("exit %d, want 2 naming out/cluster:\n%s", code, stderr)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("wrote outside the tree: %v", entries)
	}
	if !bytes.Equal(before, mustRead(t, filepath.Join(out, "kustomization.yaml"))) {
		t.Error("a file was written although the build was refused")
	}
}

// A generated path that is the spec itself is refused, not overwritten.
func TestBuildRefusesOverwritingSpec(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "kustomization.yaml")
	fleet := "cluster: {provider: eks, name: demo, region: us-east-1, version: \"1.33\", zones: [us-east-1a, us-east-1b]}\n" +
		"priorities: {p: {value: 1}}\npools: {general: {instanceTypes: [m7i.large], size: {min: 1, max: 3}}}\n" +
		"classes: {web: {priority: p}}\ntenants: {team: {namespaces: [team], classes: [web]}}\n"
	if err := os.WriteFile(spec, []byte(fleet), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run("build", spec, "-o", dir)
	if code != ExitInvalid || !strings.Contains(stderr, "is the spec file") {
		t.Errorf("exit %d, want 2 and 'is the spec file':\n%s", code, stderr)
	}
	if string(mustRead(t, spec)) != fleet {
		t.Error("the spec was overwritten")
	}
}

// The home directory is no output tree.
func TestBuildRefusesHome(t *testing.T) {
	dir := t.TempDir()
	spec := writeDemoFleet(t, dir)
	t.Setenv("HOME", dir)
	code, _, stderr := run("build", spec, "-o", dir)
	if code != ExitInvalid || !strings.Contains(stderr, "home directory") {
		t.Errorf("exit %d, want 2 and 'home directory':\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "kustomization.yaml")); err == nil {
		t.Error("wrote into the home directory")
	}
}

// GitHub Actions reads workflow commands from every line of stdout and
// stderr, a line ending at LF or CR. No input, not a spec file's name nor a
// committed file's content, may start one: the only commands are gpufleet's
// own annotations, and the fence around a diff.
func TestGitHubNoInjectedCommands(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	fleet := string(mustRead(t, writeDemoFleet(t, dir)))
	bad := strings.Replace(fleet, `priority: "p"`, `priority: "nope"`, 1)
	own := regexp.MustCompile(`^::(error|warning) (file=[^\n\r]*,)?title=gpufleet [^:\r\n]+::|^::stop-commands::[0-9a-f]{32}$|^::[0-9a-f]{32}::$`)
	check := func(name string, args ...string) {
		t.Helper()
		_, stdout, stderr := run(args...)
		for _, line := range regexp.MustCompile(`\r\n|\r|\n`).Split(stdout+"\n"+stderr, -1) {
			if l := strings.TrimLeft(line, " \t"); strings.HasPrefix(l, "::") && !own.MatchString(l) {
				t.Errorf("%s: %v: an injected workflow command: %q\nstdout:\n%s\nstderr:\n%s", name, args, line, stdout, stderr)
			}
		}
	}
	// A YAML spec whose class may land on a GPU pool: a checker finding
	// with the file's position.
	cpuOnGPU := "cluster: {provider: eks, name: demo, region: us-east-1, version: \"1.33\", zones: [us-east-1a, us-east-1b]}\n" +
		"priorities: {standard: {value: 1000}}\n" +
		"pools: {general: {instanceTypes: [m7i.xlarge], size: {min: 1, max: 3}}, l4-od: {instanceTypes: [g6.xlarge], size: {min: 0, max: 2}}}\n" +
		"classes: {web: {priority: standard, resources: {cpu: 500m}, tolerations: [{key: nvidia.com/gpu, operator: Exists}]}}\n" +
		"tenants: {team: {namespaces: [team], classes: [web]}}\n"
	for name, data := range map[string]string{
		"x\n::error::pwned.cue": bad, "x\r::add-mask::pwned.cue": bad, "::error::pwned.cue": bad, "a%0A::error::b,c:d.cue": bad,
		"y\n::error::pwned.yaml": cpuOnGPU, "::warning::pwned.yaml": cpuOnGPU,
	} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range [][]string{{"vet"}, {"check"}, {"build", "-o", "out"}, {"diff", "-o", "out"}} {
			check(name, append(cmd, "--format", "github", name)...)
		}
		check(name, "diff", "--format", "github", filepath.Join(dir, "missing", name), "-o", "out")
	}
	// A committed file whose content has a CR: the diff prints it, the CR
	// escaped, and fenced.
	if err := os.WriteFile("fleet.cue", []byte(fleet), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, e := run("build", "fleet.cue", "-o", "out"); code != ExitOK {
		t.Fatal(e)
	}
	if err := os.WriteFile(filepath.Join("out", "kustomization.yaml"), []byte("x\r::error::pwned\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stdout, _ := run("diff", "--format", "github", "fleet.cue", "-o", "out")
	m := regexp.MustCompile(`(?s)^::stop-commands::([0-9a-f]{32})\n.*-x\\r::error::pwned\n.*::([0-9a-f]{32})::\n$`).FindStringSubmatch(stdout)
	if m == nil || m[1] != m[2] {
		t.Errorf("the diff is not fenced from the runner:\n%q", stdout)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
