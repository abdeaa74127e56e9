package load_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpufleet/gpufleet/compiler/load"
)

// minimalFleet is the body of a valid fleet: one pool, one class, one
// tenant.
const minimalFleet = `
cluster: {provider: "eks", name: "h", region: "us-east-1", version: "1.36", zones: ["us-east-1a"]}
priorities: dev: {value: 100, default: true, preemption: "Never"}
pools: cpu: {instanceTypes: ["m7i.xlarge"], size: {min: 1, max: 2}}
classes: web: {
	kind:      "Deployment"
	priority:  "dev"
	resources: {cpu: "1", memory: "1Gi"}
}
tenants: team: {namespaces: ["team"], classes: ["web"]}
`

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHermeticMinimalFleetLoads(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"fleet.cue": "package fleet\n" + minimalFleet})
	if _, err := load.Load([]string{dir}); err != nil {
		t.Fatalf("minimal fleet: %v", err)
	}
}

// A spec importing a module from a registry fails at once, naming the
// import, without reaching the network: the environment's registry is
// ignored.
func TestHermeticNoRegistry(t *testing.T) {
	t.Setenv("CUE_REGISTRY", "127.0.0.1:1")
	t.Setenv("CUE_CACHE_DIR", t.TempDir())
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"cue.mod/module.cue": `module: "spec.example/fleet@v0"
language: version: "v0.17.0"
deps: "example.com/foo@v0": v: "v0.1.0"
`,
		"fleet.cue": "package fleet\nimport \"example.com/foo@v0\"\n" + minimalFleet + "cluster: name: foo.name\n",
	})
	start := time.Now()
	_, err := load.Load([]string{dir})
	took := time.Since(start)
	if err == nil {
		t.Fatal("a registry import loaded")
	}
	msg := err.Error()
	for _, want := range []string{"fleet.cue:2:8:", `cannot find package "example.com/foo@v0"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not contain %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "127.0.0.1:1") {
		t.Errorf("the environment's registry was consulted:\n%s", msg)
	}
	if took > 5*time.Second {
		t.Errorf("took %v: a registry import must fail at once", took)
	}
}

// Neither a *_tool.cue file's commands nor a tool/exec task written in a
// spec file run when a spec is evaluated.
func TestHermeticNoTools(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	run := `["sh", "-c", "touch ` + marker + `"]`
	writeFiles(t, dir, map[string]string{
		"fleet.cue": "package fleet\n" + minimalFleet,
		"fleet_tool.cue": `package fleet

import (
	"tool/exec"
	"tool/file"
)

command: pwn: {
	run:   exec.Run & {cmd: ` + run + `}
	write: file.Create & {filename: "` + marker + `", contents: "x"}
}
`,
		// A tool task in a plain spec file is only a value: CUE runs
		// tasks from "cue cmd", never while evaluating.
		"other/fleet.cue": "package fleet\nimport \"tool/exec\"\n" + minimalFleet +
			"_run: exec.Run & {cmd: " + run + "}\n",
	})
	for _, p := range []string{dir, filepath.Join(dir, "fleet.cue"), filepath.Join(dir, "other")} {
		if _, err := load.Load([]string{p}); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("loading %s ran a tool command", p)
		}
	}
}

// A spec reads nothing outside its own directory. CUE v0.17.1 allowed
// @embed of a file inside the spec directory and refused "../x" and
// absolute paths, but followed a symbolic link inside the directory to any
// file: so file embedding is refused outright, and so is any symbolic link
// that leads a .cue file or a package directory out of the spec directory.
func TestHermeticNoOutsideReads(t *testing.T) {
	root := t.TempDir()

	secret := filepath.Join(root, "secret.txt")
	writeFiles(t, root, map[string]string{
		"secret.txt":       secretText,
		"secret.cue":       "package fleet\npriorities: dev: description: \"" + secretText + "\"\n",
		"other/other.cue":  "package other\nv: \"" + secretText + "\"\n",
		"outside/x.cue":    "package out\nv: \"" + secretText + "\"\n",
		"spec/inside.txt":  "inside",
		"spec/base.cue":    "package fleet\n" + minimalFleet,
		"spec/sub/sub.cue": "package sub\nv: \"inside\"\n",
	})
	dir := filepath.Join(root, "spec")
	if err := os.Symlink(secret, filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	embed := func(ref string) string {
		return "@extern(embed)\npackage fleet\npriorities: dev: description: _ @embed(file=\"" + ref + "\", type=text)\n"
	}
	cases := []struct {
		name  string
		files map[string]string
		link  [2]string // a symbolic link to make: name in dir, target
		want  string
	}{
		{name: "embed inside", files: map[string]string{"e.cue": embed("inside.txt")}, want: "may not embed files"},
		{name: "embed parent", files: map[string]string{"e.cue": embed("../secret.txt")}, want: "may not embed files"},
		{name: "embed absolute", files: map[string]string{"e.cue": embed(secret)}, want: "may not embed files"},
		{name: "embed symlink", files: map[string]string{"e.cue": embed("link.txt")}, want: "may not embed files"},
		{name: "extern after package", files: map[string]string{"e.cue": "package fleet\n@extern(embed)\n"}, want: "may not embed files"},
		{name: "relative import", files: map[string]string{"e.cue": "package fleet\nimport \"../other\"\npriorities: dev: description: other.v\n"}, want: "e.cue:2:8"},
		{name: "cue file symlink", link: [2]string{"zz.cue", filepath.Join(root, "secret.cue")}, want: "symbolic link leads outside"},
		{name: "package dir symlink", files: map[string]string{"e.cue": "package fleet\nimport \"gpufleet.local/spec/out\"\npriorities: dev: description: out.v\n"},
			link: [2]string{"out", filepath.Join(root, "outside")}, want: "symbolic link leads outside"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "spec")
			if err := os.CopyFS(d, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, d, c.files)
			if c.link[0] != "" {
				if err := os.Symlink(c.link[1], filepath.Join(d, c.link[0])); err != nil {
					t.Fatal(err)
				}
			}
			src, err := load.Load([]string{d})
			if err == nil {
				t.Fatalf("loaded; description %q", src.Fleet.Priorities["dev"].Description)
			}
			if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, secretText) {
				t.Fatalf("want an error containing %q, not the secret; got:\n%s", c.want, msg)
			}
		})
	}
	// Without @extern(embed), @embed is an inert attribute.
	d := filepath.Join(t.TempDir(), "spec")
	writeFiles(t, d, map[string]string{"fleet.cue": "package fleet\n" + minimalFleet +
		"priorities: dev: description: *\"kept\" | string @embed(file=\"../secret.txt\", type=text)\n"})
	src, err := load.Load([]string{d})
	if err != nil {
		t.Fatal(err)
	}
	if got := src.Fleet.Priorities["dev"].Description; got != "kept" {
		t.Fatalf("description %q", got)
	}
	// A symbolic link inside the directory to a file inside it is fine.
	d = filepath.Join(t.TempDir(), "spec")
	writeFiles(t, d, map[string]string{"real/fleet.cue.txt": "package fleet\n" + minimalFleet})
	if err := os.Symlink(filepath.Join(d, "real", "fleet.cue.txt"), filepath.Join(d, "fleet.cue")); err != nil {
		t.Fatal(err)
	}
	if _, err := load.Load([]string{d}); err != nil {
		t.Fatalf("a link within the directory: %v", err)
	}
}

// Only the files the loader reads count: an unrelated link elsewhere in
// the spec's directory (here, to a directory outside it) is not an error.
func TestUnrelatedLinkIgnored(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "fleet.cue")
	if err := os.WriteFile(spec, []byte(minimalFleetForLinks), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := load.Load([]string{spec}); err != nil {
		t.Fatalf("unrelated link rejected: %v", err)
	}
}

const minimalFleetForLinks = `package fleet
cluster: {provider: "eks", name: "c", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
priorities: p: value: 1
pools: g: {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}}
classes: web: priority: "p"
tenants: t: {namespaces: ["t"], classes: ["web"]}
`

// A YAML or JSON spec that is a symbolic link out of its directory is
// refused without reading the target, whose content a decoder error would
// quote; a link within the directory is followed.
func TestDataFileLinkConfined(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"outside/secret.yaml": "secret: " + secretText + "\n",
		"spec/real.yaml":      "cluster: {provider: eks}\n",
	})
	for _, ext := range []string{".yaml", ".yml", ".json"} {
		link := filepath.Join(root, "spec", "fleet"+ext)
		if err := os.Symlink(filepath.Join(root, "outside", "secret.yaml"), link); err != nil {
			t.Fatal(err)
		}
		_, err := load.Load([]string{link})
		if err == nil || !strings.Contains(err.Error(), "symbolic link leads outside the spec directory") || strings.Contains(err.Error(), secretText) {
			t.Errorf("%s: got %v", ext, err)
		}
	}
	inside := filepath.Join(root, "spec", "inside.yaml")
	if err := os.Symlink("real.yaml", inside); err != nil {
		t.Fatal(err)
	}
	if _, err := load.Load([]string{inside}); err == nil || strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a link within the directory: %v", err)
	}
}

const secretText = "TOPSECRET"
