package write

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// A build killed at any moment of its commit (SIGKILL cannot be caught)
// leaves a tree that diff calls out of date and that the same build, run
// again with --prune, turns into exactly the new tree. With the manifest
// renamed before the prune, a build killed between them left stale files
// that the new manifest no longer listed: every later build kept them, and
// diff called the tree up to date.
func TestKilledBuildCompletes(t *testing.T) {
	old := tree.Tree{"a.yaml": []byte("a\n"), "same.yaml": []byte("s\n"), "gone/b.yaml": []byte("b\n"), "gone.yaml": []byte("g\n")}
	AddManifest(old)
	next := tree.Tree{"a.yaml": []byte("a2\n"), "same.yaml": []byte("s\n"), "new/c.yaml": []byte("c\n")}
	AddManifest(next)
	for _, point := range []string{"renamed", "pruned"} {
		t.Run(point, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			if _, err := Tree(out, old); err != nil {
				t.Fatal(err)
			}
			killed := filepath.Join(t.TempDir(), "killed")
			t.Cleanup(func() { killPoint = func(string) {} })
			killPoint = func(at string) {
				if at == point {
					copyTree(t, out, killed)
				}
			}
			if _, err := Tree(out, next, Options{Prune: true}); err != nil {
				t.Fatal(err)
			}
			killPoint = func(string) {}
			if _, err := os.Stat(killed); err != nil {
				t.Fatalf("the build never reached %q", point)
			}
			if changes, err := Compare(killed, next); err != nil || len(changes) == 0 {
				t.Fatalf("diff calls the killed tree up to date (%v)", err)
			}
			if _, err := Tree(killed, next, Options{Prune: true}); err != nil {
				t.Fatal(err)
			}
			if got, want := files(t, killed), files(t, out); !maps.Equal(got, want) {
				t.Errorf("run again, the killed build left\n%v\nwant\n%v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			}
		})
	}
}

// copyTree copies the regular files and directories below from into to,
// a leftover stage directory included, as a SIGKILL would leave them.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		return os.WriteFile(filepath.Join(to, rel), mustRead(t, p), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// files maps each regular file below dir to its bytes.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			if strings.HasPrefix(rel, stagePrefix) {
				t.Errorf("stage directory %s left", rel)
			}
			out[filepath.ToSlash(rel)] = string(mustRead(t, p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A manifest that lists a directory (gpufleet lists files only, but an
// older or hand-edited manifest may) does not report it as left when
// pruning its files empties it and removes it.
func TestPrunedDirectoryNotReportedLeft(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	old := tree.Tree{"a.yaml": []byte("a\n"), "old/b.yaml": []byte("b\n")}
	AddManifest(old)
	if _, err := Tree(out, old); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(out, ManifestPath)
	if err := os.WriteFile(m, append(mustRead(t, m), "old\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	next := tree.Tree{"a.yaml": []byte("a\n")}
	AddManifest(next)
	res, err := Tree(out, next, Options{Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "old")); err == nil {
		t.Error("old/ is still there")
	}
	if len(res.Kept) != 0 || !slices.Equal(res.Pruned, []string{"old/b.yaml"}) {
		t.Errorf("kept %v, pruned %v; want none kept, old/b.yaml pruned", res.Kept, res.Pruned)
	}
}

// A manifest line of any length is read (a 10 MB one gave "bufio.Scanner:
// token too long" with no file), and a bad one is an error at its line.
func TestManifestLongLine(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	first := tree.Tree{"a.yaml": []byte("a\n")}
	AddManifest(first)
	if _, err := Tree(out, first); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(out, ManifestPath)
	long := strings.Repeat("x", 10<<20)
	if err := os.WriteFile(m, append(mustRead(t, m), long+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Tree(out, first, Options{Prune: true})
	if err == nil || !regexp.MustCompile(`^\.gpufleet-manifest:\d+: path "x{200}\.\.\." is not one gpufleet writes$`).MatchString(err.Error()) {
		t.Fatalf("got %.300v", err)
	}
}
