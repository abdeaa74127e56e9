package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestPreCommitHooks: every hook in the repository's .pre-commit-hooks.yaml
// runs a real gpufleet subcommand, is built with Go, and fires on specs.
func TestPreCommitHooks(t *testing.T) {
	data, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID            string   `json:"id"`
		Name          string   `json:"name"`
		Description   string   `json:"description"`
		Entry         string   `json:"entry"`
		Language      string   `json:"language"`
		Files         string   `json:"files"`
		PassFilenames *bool    `json:"pass_filenames"`
		Args          []string `json:"args"`
		Verbose       bool     `json:"verbose"` // pre-commit prints the output of a hook that passed
	}
	if err := yaml.UnmarshalStrict(data, &hooks); err != nil {
		t.Fatal(err)
	}
	root := NewRootCmd(nil, nil)
	seen := map[string]bool{}
	for _, h := range hooks {
		if h.ID == "" || h.Name == "" {
			t.Errorf("hook %+v: id and name are required", h)
		}
		seen[h.ID] = true
		f := strings.Fields(h.Entry)
		if len(f) < 2 || f[0] != "gpufleet" {
			t.Errorf("hook %s: entry %q does not run a gpufleet subcommand", h.ID, h.Entry)
			continue
		}
		cmd, _, err := root.Find(f[1:2])
		if err != nil || cmd == root || cmd.Name() != f[1] {
			t.Errorf("hook %s: %q is not a gpufleet subcommand", h.ID, f[1])
		}
		if h.ID != "gpufleet-"+f[1] {
			t.Errorf("hook %s runs %q", h.ID, f[1])
		}
		if h.Language != "golang" {
			t.Errorf("hook %s: language %q, want golang", h.ID, h.Language)
		}
		if h.PassFilenames == nil || *h.PassFilenames {
			t.Errorf("hook %s: pass_filenames must be false (SPECs are the hook's args)", h.ID)
		}
		re, err := regexp.Compile(h.Files)
		if err != nil {
			t.Errorf("hook %s: files: %v", h.ID, err)
			continue
		}
		for name, want := range map[string]bool{"fleet/fleet.cue": true, "tenants.yaml": true, "t.yml": true, "f.json": true, "main.go": false, "README.md": false} {
			if re.MatchString(name) != want {
				t.Errorf("hook %s: files %q matches %s: %v, want %v", h.ID, h.Files, name, !want, want)
			}
		}
	}
	for _, id := range []string{"gpufleet-vet", "gpufleet-check", "gpufleet-diff"} {
		if !seen[id] {
			t.Errorf("no hook %s", id)
		}
	}
}
