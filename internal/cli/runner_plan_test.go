package cli

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// checkPlan is FuzzRunnerCommands' plan: a committed tree whose report
// names a class and a pool h, whose ResourceQuota (a file the compiled
// tree no longer has) names its tenant, namespace and resource h, and,
// in a second tree, whose eksctl file names its node group and pool h
// (and gives it more nodes, so plan says it went). Their
// sums in the manifest differ from the compiled files', so plan reads
// them, in every format.
func (x *runnerFixture) checkPlan(t *testing.T, h, dir, spec string, try func(args ...string)) {
	q, err := json.Marshal(h) // a JSON string is a YAML double-quoted one
	if err != nil {
		t.Fatal(err)
	}
	report := committedCopy(t, x.tree, filepath.Join(dir, "plan"), map[string]func(string) string{
		"report/placement.json": func(s string) string {
			return strings.NewReplacer(`"web"`, string(q), `"general"`, string(q)).Replace(s)
		},
		"tenants/team/resourcequotas.yaml": func(string) string {
			return "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  labels:\n    gpufleet.dev/tenant: " + string(q) +
				"\n  name: " + string(q) + "\n  namespace: " + string(q) + "\nspec:\n  hard:\n    " + string(q) + ": \"4\"\n"
		},
	})
	groups := committedCopy(t, x.tree, filepath.Join(dir, "plan-groups"), map[string]func(string) string{
		"nodegroups/eksctl.yaml": func(s string) string {
			return strings.NewReplacer("name: general", "name: "+string(q), "pool: general", "pool: "+string(q), "maxSize: 3", "maxSize: 5").Replace(s)
		},
	})
	summary := filepath.Join(dir, "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	for _, format := range planFormats {
		try("plan", spec, "-o", report, "--format", format)
		try("plan", spec, "-o", groups, "--format", format)
	}
	// The step summary is the github format's Markdown, which a log or a
	// terminal may show too. (A tree YAML cannot read, as with a raw C1
	// control in a plain scalar, stops plan before it writes one.)
	b, err := os.ReadFile(summary)
	if errors.Is(err, fs.ErrNotExist) {
		return
	} else if err != nil {
		t.Fatal(err)
	}
	if i := terminalControl(string(b)); i >= 0 {
		t.Errorf("plan's step summary with %q holds a terminal control at byte %d: %q", h, i, clip(string(b[max(0, i-40):])))
	}
}

var manifestLine = regexp.MustCompile(`(?m)^[0-9a-f]{64}  (.*)$`)

// committedCopy copies the tree to dir with each file in edits rewritten
// (or added), and the manifest listing it with a sum no compiled file has.
func committedCopy(t *testing.T, tree, dir string, edits map[string]func(string) string) string {
	if err := os.CopyFS(dir, os.DirFS(tree)); err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join(dir, ".gpufleet-manifest"))
	if err != nil {
		t.Fatal(err)
	}
	m := string(manifest)
	for p, edit := range edits {
		b, _ := os.ReadFile(filepath.Join(dir, p))
		if err := os.WriteFile(filepath.Join(dir, p), []byte(edit(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
		if b == nil {
			m += strings.Repeat("0", 64) + "  " + p + "\n"
		}
	}
	m = manifestLine.ReplaceAllStringFunc(m, func(line string) string {
		if p := line[66:]; edits[p] != nil {
			return strings.Repeat("0", 64) + "  " + p
		}
		return line
	})
	if err := os.WriteFile(filepath.Join(dir, ".gpufleet-manifest"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
