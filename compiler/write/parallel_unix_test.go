//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package write

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// Of the files that cannot be written, the build names the lowest path,
// whichever CPU met which first: here a name too long, in three places,
// the lowest of them in a directory made after the others'.
func TestLowestPathErrorWins(t *testing.T) {
	long := strings.Repeat("x", 300) + ".yaml"
	tr := wide(2000)
	tr["d02/"+long] = []byte("x\n")
	tr["d01/e03/"+long] = []byte("x\n") // deeper, yet the lowest
	tr["d09/e01/"+long] = []byte("x\n")
	want := filepath.Join("d01", "e03", long)
	for range 5 {
		parent := t.TempDir()
		_, err := Tree(filepath.Join(parent, "out"), tr)
		if err == nil || !strings.Contains(err.Error(), want+":") {
			t.Fatalf("err = %v, want one naming %s", err, want)
		}
		noStage(t, parent)
	}
	// A rebuild finds it while looking, before writing anything.
	for _, p := range []string{"d01/e03/f66.yaml", "d02/g15.yaml", "d09/e01/f204.yaml"} {
		if _, ok := tr[p]; !ok {
			t.Fatalf("%s is not in the tree: the directories the long names go in must exist", p)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Tree(out, wide(2000)); err != nil {
		t.Fatal(err)
	}
	before := sumOf(t, out)
	for range 5 {
		if _, err := Tree(out, tr); err == nil || !strings.Contains(err.Error(), want+":") {
			t.Fatalf("rebuild: err = %v, want one naming %s", err, want)
		}
	}
	if sumOf(t, out) != before {
		t.Error("a refused rebuild changed the tree")
	}
	noStage(t, out)
}

// A link swapped in for a directory after the checks, before the renames,
// is not followed: the rename into it fails, and nothing appears where it
// points, outside the tree or inside.
func TestLinkSwappedInBeforeRename(t *testing.T) {
	gen := tree.Tree{"a.yaml": []byte("a\n"), "sub/b.yaml": []byte("b\n"), "in/c.yaml": []byte("c\n")}
	for _, target := range []string{"outside", "in"} {
		t.Run(target, func(t *testing.T) {
			out, outside := hostile(t, gen)
			dst := outside
			if target == "in" {
				dst = filepath.Join(out, "in") // a link that stays in the tree
			}
			pause(t, func() { replaceWithLink(t, dst, filepath.Join(out, "sub")) })
			changed := tree.Tree{"a.yaml": []byte("a\n"), "sub/b.yaml": []byte("CHANGED\n"), "in/c.yaml": []byte("c\n")}
			_, err := Tree(out, changed)
			if err == nil || !strings.Contains(err.Error(), "sub is a symbolic link") {
				t.Fatalf("err = %v, want 'sub is a symbolic link'", err)
			}
			outsideIntact(t, outside)
			if entries, _ := os.ReadDir(filepath.Join(out, "in")); len(entries) != 1 {
				t.Errorf("in/ holds %v, want c.yaml alone", entries)
			}
			noStage(t, out)
		})
	}
}

// A directory of files to prune swapped for a link after the plan, before
// the renames: prune follows it nowhere, keeps the files and says why.
func TestPruneAfterLinkSwappedIn(t *testing.T) {
	gen := withManifest(tree.Tree{"a.yaml": []byte("a\n"), "old/b.yaml": []byte(tree.Header + "b: outside\n")})
	out, outside := hostile(t, gen)
	pause(t, func() {
		if err := os.Rename(filepath.Join(out, "old"), filepath.Join(out, "moved")); err != nil {
			t.Fatal(err)
		}
		replaceWithLink(t, outside, filepath.Join(out, "old"))
	})
	res, err := Tree(out, withManifest(tree.Tree{"a.yaml": []byte("a\n")}), Options{Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	outsideIntact(t, outside)
	if len(res.Pruned) != 0 || len(res.Kept) != 1 || res.Kept[0].Reason != "old is a symbolic link" {
		t.Errorf("pruned %v, kept %+v; want old/b.yaml kept: old is a symbolic link", res.Pruned, res.Kept)
	}
}

// A directory that cannot be written fails a build that would rename a
// file into it, before any rename; a build that changes nothing there
// does not need to write it, and succeeds.
func TestUnwritableDirectory(t *testing.T) {
	gen := tree.Tree{"a.yaml": []byte("a\n"), "ro/b.yaml": []byte("b\n"), "z/c.yaml": []byte("c\n")}
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Tree(out, gen); err != nil {
		t.Fatal(err)
	}
	readOnly(t, filepath.Join(out, "ro"))
	if res, err := Tree(out, gen); err != nil || len(res.Written) != 0 {
		t.Fatalf("unchanged rebuild: %+v, %v", res, err)
	}
	elsewhere := tree.Tree{"a.yaml": []byte("a2\n"), "ro/b.yaml": []byte("b\n"), "z/c.yaml": []byte("c2\n")}
	if res, err := Tree(out, elsewhere); err != nil || len(res.Written) != 2 {
		t.Fatalf("a rebuild that changes nothing in ro/: %+v, %v", res, err)
	}
	before := sumOf(t, out)
	into := tree.Tree{"a.yaml": []byte("a3\n"), "ro/b.yaml": []byte("b3\n"), "z/c.yaml": []byte("c3\n")}
	if _, err := Tree(out, into); err == nil || !strings.Contains(err.Error(), "output directory is not writable") {
		t.Fatalf("err = %v, want 'output directory is not writable'", err)
	}
	if sumOf(t, out) != before {
		t.Error("a build refused for ro/ renamed files elsewhere")
	}
}

// readOnly makes dir unwritable until the test ends: by its mode, or, for
// root, which writes anyway, by the immutable attribute.
func readOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("root, and no immutable attribute here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
}

// The portable handles, for platforms without openat, pass the tests that
// pin what a build refuses and what it never touches.
func TestPortableHandles(t *testing.T) {
	openBase = openRootDir
	t.Cleanup(func() { openBase = openFDDir })
	for name, test := range map[string]func(*testing.T){
		"NewDir":                    TestNewDir,
		"ExistingDirKeepsUserFiles": TestExistingDirKeepsUserFiles,
		"BlockedPathChangesNothing": TestBlockedPathChangesNothing,
		"Prune":                     TestPrune,
		"Compare":                   TestCompare,
		"CompareDoesNotFollow":      TestCompareDoesNotFollowSymlinks,
		"TreeRefusesSymlinks":       TestTreeRefusesSymlinks,
		"PruneDoesNotFollow":        TestPruneDoesNotFollowSymlinks,
		"RefusesOverwritingSpec":    TestRefusesOverwritingSpec,
		"BigFile":                   TestBigFileComparedInPieces,
		"SameContent":               TestSameContent,
		"WrittenInPathOrder":        TestWrittenInPathOrder,
		"StopWhileWriting":          TestStopWhileWriting,
		"FileAndDirectory":          TestFileAndDirectoryAtOnePath,
		"LowestPathErrorWins":       TestLowestPathErrorWins,
		"UnwritableDirectory":       TestUnwritableDirectory,
	} {
		t.Run(name, test)
	}
	for i, seed := range escapeSeeds() {
		t.Run("escape/"+string(rune('a'+i)), func(t *testing.T) { escape(t, seed) })
	}
}

// A read-only tree that is already up to date builds: it would write
// nothing, so it needs no stage directory (which failed, although nothing
// was to change).
func TestReadOnlyUpToDate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	tr := tree.Tree{"a.yaml": []byte("a\n"), "d/b.yaml": []byte("b\n")}
	AddManifest(tr)
	if _, err := Tree(out, tr); err != nil {
		t.Fatal(err)
	}
	readOnly(t, out)
	res, err := Tree(out, tr, Options{Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 0 || len(res.Unchanged) != 3 {
		t.Errorf("written %v, unchanged %v", res.Written, res.Unchanged)
	}
}
