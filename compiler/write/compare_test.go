package write

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

func TestCompare(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	tr := tree.Tree{"a.yaml": []byte("a: 1\nb: 2\n"), "sub/c.yaml": []byte("c\n")}
	if _, err := Tree(out, tr); err != nil {
		t.Fatal(err)
	}
	if ch, err := Compare(out, tr); err != nil || len(ch) != 0 {
		t.Fatalf("fresh tree: %v %v", ch, err)
	}
	// A hand edit, a deleted file and a user's own file.
	if err := os.WriteFile(filepath.Join(out, "a.yaml"), []byte("a: 1\nb: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(out, "sub/c.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "mine.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ch, err := Compare(out, tr)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 2 || ch[0].Kind != "changed" || ch[1].Kind != "missing" {
		t.Fatalf("changes %+v, want a.yaml changed and sub/c.yaml missing", ch)
	}
	if !strings.Contains(ch[0].Diff, "-b: 3\n+b: 2\n") || !strings.Contains(ch[0].Diff, "--- a/a.yaml") {
		t.Errorf("diff:\n%s", ch[0].Diff)
	}
}
