package write

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func noStage(t *testing.T, parent string) {
	t.Helper()
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".gpufleet-stage-") {
			t.Errorf("staging directory %s left behind", e.Name())
		}
	}
}

func TestNewDir(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	res, err := Tree(out, tree.Tree{"a.yaml": []byte("a\n"), "sub/b.yaml": []byte("b\n")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 2 || read(t, filepath.Join(out, "sub/b.yaml")) != "b\n" {
		t.Errorf("written %v", res.Written)
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o755 {
		t.Errorf("output dir mode %v, want 0755", fi.Mode().Perm())
	}
	noStage(t, parent)
}

func TestExistingDirKeepsUserFiles(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	if _, err := Tree(out, tree.Tree{"a.yaml": []byte("a\n"), "b.yaml": []byte("b\n")}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "README.md"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Tree(out, tree.Tree{"a.yaml": []byte("a\n"), "b.yaml": []byte("b2\n")})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Written, ",") != "b.yaml" || strings.Join(res.Unchanged, ",") != "a.yaml" {
		t.Errorf("written %v unchanged %v; want b.yaml changed, a.yaml unchanged", res.Written, res.Unchanged)
	}
	if read(t, filepath.Join(out, "README.md")) != "mine" || read(t, filepath.Join(out, "b.yaml")) != "b2\n" {
		t.Error("user file lost or generated file not updated")
	}
	noStage(t, parent)
}

func TestOutputIsAFile(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	if err := os.WriteFile(out, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Tree(out, tree.Tree{"a.yaml": []byte("a\n")})
	if err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Fatalf("err = %v, want 'is not a directory'", err)
	}
	if read(t, out) != "keep" {
		t.Error("file at the output path was changed")
	}
	noStage(t, parent)
}

// A generated path blocked by a directory fails before any file changes.
func TestBlockedPathChangesNothing(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	if _, err := Tree(out, tree.Tree{"a.yaml": []byte("a\n")}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(out, "z.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Tree(out, tree.Tree{"a.yaml": []byte("CHANGED\n"), "z.yaml": []byte("z\n")})
	if err == nil || !strings.Contains(err.Error(), "it is a directory") {
		t.Fatalf("err = %v, want 'it is a directory'", err)
	}
	if read(t, filepath.Join(out, "a.yaml")) != "a\n" {
		t.Error("a.yaml changed although the write failed")
	}
	noStage(t, parent)
}

// Prune deletes only what an earlier build's manifest listed.
func TestPrune(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	first := tree.Tree{"a.yaml": []byte("a\n"), "old/b.yaml": []byte("b\n")}
	AddManifest(first)
	if _, err := Tree(out, first); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "old", "user.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	second := tree.Tree{"a.yaml": []byte("a\n")}
	AddManifest(second)
	res, err := Tree(out, second, Options{Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Pruned, ",") != "old/b.yaml" {
		t.Errorf("pruned %v, want old/b.yaml", res.Pruned)
	}
	if _, err := os.Stat(filepath.Join(out, "old", "user.txt")); err != nil {
		t.Error("a user's file was pruned")
	}
	if _, err := os.Stat(filepath.Join(out, "old", "b.yaml")); err == nil {
		t.Error("old/b.yaml survived the prune")
	}
}
