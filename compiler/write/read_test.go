package write

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// A plan reads the committed tree, which a pull request may have planted:
// Read follows no link, reads no more than it is allowed, and a manifest
// naming a path outside the tree is an error.
func TestReadHostile(t *testing.T) {
	gen := withManifest(tree.Tree{"a/x.yaml": []byte(tree.Header + "x: 1\n"), "a/y.yaml": []byte(tree.Header + "y: 2\n"), "b.yaml": []byte(tree.Header + "b: 3\n")})
	out, outside := hostile(t, gen)
	replaceWithLink(t, filepath.Join(outside, "secret.txt"), filepath.Join(out, "a", "x.yaml"))
	c, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Entries) != 3 || c.Entries[0].Path != "a/x.yaml" || len(c.Entries[0].Sum) != 64 {
		t.Fatalf("entries %v", c.Entries)
	}
	got, err := c.Read(func(p string) int64 {
		if p == "b.yaml" {
			return 4 // smaller than the file
		}
		return MaxRead
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["a/x.yaml"]; ok {
		t.Error("read through a link")
	}
	if _, ok := got["b.yaml"]; ok {
		t.Error("read a file over its limit")
	}
	if string(got["a/y.yaml"]) != tree.Header+"y: 2\n" {
		t.Errorf("a/y.yaml: %q", got["a/y.yaml"])
	}
	for _, b := range got {
		if strings.Contains(string(b), "hunter2") {
			t.Error("the secret was read")
		}
	}
	outsideIntact(t, outside)

	if err := os.WriteFile(filepath.Join(out, ManifestPath), []byte("../outside/secret.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(out); err == nil || !strings.Contains(err.Error(), "leaves the output tree") {
		t.Errorf("a manifest naming a path outside: %v", err)
	}
	if _, err := Open(filepath.Join(out, "nowhere")); !errors.Is(err, ErrNoTree) {
		t.Errorf("no tree: %v", err)
	}
}
