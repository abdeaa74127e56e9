package workflow_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// The release workflow and the setup action it installs with, at their
// places in the repository, so that actionlint finds the project and
// reads the local action's metadata (inputs, outputs) where the workflow
// uses it.
const (
	releaseFile = "../../.github/workflows/release.yml"
	setupAction = "../../.github/actions/setup-gpufleet/action.yml"
)

func TestReleaseActionlint(t *testing.T) {
	src, err := os.ReadFile(releaseFile)
	if err != nil {
		t.Fatal(err)
	}
	if errs := lintProject(t, "../..", releaseFile, src); len(errs) > 0 {
		t.Errorf("actionlint %s:\n%s", releaseFile, format(errs))
	}
	if _, err := os.Stat(setupAction); err != nil {
		t.Fatal(err)
	}
}

// Each deliberate bug in the release workflow, or in the setup action it
// uses, is one actionlint reports: the action's own metadata is judged
// through the workflow, so a copy of the repository holds the mutant.
func TestReleaseActionlintCatchesBugs(t *testing.T) {
	for _, m := range []struct {
		file string
		mutant
	}{
		{releaseFile, mutant{"unknown input of the setup action", "version: ${{ github.ref_name }}\n          repository:", "versio: ${{ github.ref_name }}\n          repository:", `input "versio" is not defined in action "Set up gpufleet"`}},
		{releaseFile, mutant{"undefined output of the setup action", "steps.setup.outputs.path", "steps.setup.outputs.binary", `property "binary" is not defined`}},
		{releaseFile, mutant{"tag event typo", "push:\n    tags:", "push:\n    tag:", `unexpected key "tag" for "push" section`}},
		{setupAction, mutant{"the action's required input dropped", "  version:\n    description: A release tag", "  vers:\n    description: A release tag", `input "version" is not defined in action "Set up gpufleet"`}},
	} {
		t.Run(m.name, func(t *testing.T) {
			root := t.TempDir()
			for _, f := range []string{releaseFile, setupAction} {
				src, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if f == m.file {
					src = m.apply(t, src)
				}
				dst := filepath.Join(root, strings.TrimPrefix(f, "../../"))
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(dst, src, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(root, ".github/workflows/release.yml")
			src, _ := os.ReadFile(path)
			got := format(lintProject(t, root, path, src))
			if !strings.Contains(got, m.want) {
				t.Errorf("actionlint did not report %q; it said:\n%s", m.want, got)
			}
			t.Logf("caught: %s", strings.TrimSpace(got))
		})
	}
}

// lintProject is lint with the repository root given ("": found as
// actionlint finds it in a clone, a .git beside .github/workflows), so
// that a temporary copy's local actions are read too.
func lintProject(t *testing.T, root, name string, src []byte) []*actionlint.Error {
	t.Helper()
	var p *actionlint.Project
	if root != "" {
		var err error
		if p, err = actionlint.NewProject(root); err != nil {
			t.Fatal(err)
		}
	}
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{Shellcheck: "", Pyflakes: ""})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint(name, src, p)
	if err != nil {
		t.Fatalf("actionlint: %v", err)
	}
	return errs
}

func TestReleaseGitHubParser(t *testing.T) {
	if out, code := parse(t, releaseFile); code != 0 {
		t.Errorf("GitHub's parser rejects %s (exit %d):\n%s", releaseFile, code, out)
	}
}
