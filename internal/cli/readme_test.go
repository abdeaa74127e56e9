package cli

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateReadme = flag.Bool("update", false, "rewrite the README's generated plan")

// TestReadmePlan holds the plan the README shows to what plan prints for
// the change it describes: 'go test ./internal/cli -run TestReadmePlan
// -update' rewrites it.
func TestReadmePlan(t *testing.T) {
	const readme = "../../README.md"
	dir := t.TempDir()
	spec := filepath.Join(dir, "fleet.cue")
	src, err := os.ReadFile("../../fleets/platform/fleet.cue")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spec, src, 0o644); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(dir, "tree")
	if code := Run([]string{"build", spec, "-o", tree}, io.Discard, io.Discard); code != ExitOK {
		t.Fatalf("build: exit %d", code)
	}
	edited := string(src)
	for _, e := range [][2]string{{"size: {min: 0, max: 4}", "size: {min: 0, max: 2}"}, {"size: {min: 2, max: 12}", "size: {min: 2, max: 16}"}, {`instanceTypes: ["m7i.2xlarge", "m6i.2xlarge"]`, `instanceTypes: ["m7i.2xlarge"]`}} {
		if strings.Count(edited, e[0]) != 1 {
			t.Fatalf("fleets/platform no longer has %q once", e[0])
		}
		edited = strings.Replace(edited, e[0], e[1], 1)
	}
	if err := os.WriteFile(spec, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"plan", spec, "-o", tree, "--format", "markdown"}, &stdout, &stderr); code != ExitOK {
		t.Fatalf("plan: exit %d\n%s", code, &stderr)
	}
	// As the workflow runs it: the spec and tree at their usual paths.
	md := strings.ReplaceAll(stdout.String(), spec, "fleet/")
	md = strings.ReplaceAll(md, tree, "base/gitops/fleet")
	// A heading in the comment is a level below the README's sections.
	md = strings.ReplaceAll(md, "\n#### ", "\n##### ")
	md = strings.Replace(md, "### gpufleet plan", "#### gpufleet plan", 1)
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- plan:begin -->\n", "<!-- plan:end -->"
	i, j := bytes.Index(b, []byte(begin)), bytes.Index(b, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q ... %q block", begin, end)
	}
	want := append(append(append([]byte{}, b[:i+len(begin)]...), "> "+strings.ReplaceAll(strings.TrimRight(md, "\n"), "\n", "\n> ")+"\n"...), b[j:]...)
	want = bytes.ReplaceAll(want, []byte("> \n"), []byte(">\n"))
	if bytes.Equal(b, want) {
		return
	}
	if *updateReadme {
		if err := os.WriteFile(readme, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's plan is not what plan prints; run 'go test ./internal/cli -run TestReadmePlan -update'")
}
