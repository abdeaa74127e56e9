//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package write

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// fakeStage makes dir/name as a build would stage it, then lets mess
// change it.
func fakeStage(t *testing.T, dir, name string, mess func(st string)) {
	t.Helper()
	st := filepath.Join(dir, name)
	for p, data := range map[string]string{markerName: stageMarker, "tree/tenants/a.yaml": "a\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(st, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(st, p), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if mess != nil {
		mess(st)
	}
}

// A build removes the stages that killed builds left in the tree or, for
// a new tree, beside it, and says so; it leaves a stage a build is using,
// and any directory that holds anything a stage would not.
func TestLeftoverStages(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	if _, err := Tree(out, tree.Tree{"a.yaml": []byte("a\n")}); err != nil {
		t.Fatal(err)
	}
	write := func(p, data string) func(string) {
		return func(st string) {
			if err := os.WriteFile(filepath.Join(st, p), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	dead := stagePrefix + strings.Repeat("A", 26)
	fakeStage(t, out, dead, nil)
	// Builds killed while they made their stages: after the mkdir, and
	// halfway through the marker.
	killedEarly := []string{stagePrefix + strings.Repeat("F", 26), stagePrefix + strings.Repeat("G", 26)}
	if err := os.Mkdir(filepath.Join(out, killedEarly[0]), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(out, killedEarly[1]), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, killedEarly[1], markerName), []byte(stageMarker[:20]), 0o600); err != nil {
		t.Fatal(err)
	}
	keep := map[string]func(string){
		stagePrefix + strings.Repeat("B", 26): func(st string) { os.Remove(filepath.Join(st, markerName)) },
		stagePrefix + strings.Repeat("C", 26): write(markerName, "mine\n"),
		stagePrefix + strings.Repeat("H", 26): write(markerName, stageMarker[:20]), // with tree/: not a build's
		stagePrefix + strings.Repeat("D", 26): write("notes.md", "mine\n"),
		stagePrefix + strings.Repeat("E", 26): func(st string) { os.Symlink("/etc", filepath.Join(st, "tree", "etc")) },
		stagePrefix + "1234567890":            nil, // not a name gpufleet gives
		stagePrefix + strings.Repeat("a", 26): nil,
	}
	for name, mess := range keep {
		fakeStage(t, out, name, mess)
	}
	root, err := os.OpenRoot(out)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	live, err := newStage(root) // a build staging right now
	if err != nil {
		t.Fatal(err)
	}
	defer live.remove()

	var notices []string
	notice := func(msg string) { notices = append(notices, msg) }
	if _, err := Tree(out, tree.Tree{"a.yaml": []byte("b\n")}, Options{Notice: notice}); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, name := range append([]string{dead}, killedEarly...) {
		want = append(want, "removed "+filepath.Join(out, name)+", the stage directory of a build that did not finish")
		if _, err := os.Lstat(filepath.Join(out, name)); !os.IsNotExist(err) {
			t.Errorf("the dead stage %s is still there (%v)", name, err)
		}
	}
	if got := strings.Join(notices, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("notices %q, want %q", notices, want)
	}
	for name := range keep {
		if _, err := os.Lstat(filepath.Join(out, name, "tree", "tenants", "a.yaml")); err != nil {
			t.Errorf("%s was touched: %v", name, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(out, live.name, markerName)); err != nil {
		t.Errorf("the live stage was touched: %v", err)
	}

	// Beside a new tree: a dead stage goes, a sibling build's live one stays.
	fakeStage(t, parent, dead, nil)
	proot, err := os.OpenRoot(parent)
	if err != nil {
		t.Fatal(err)
	}
	defer proot.Close()
	sibling, err := newStage(proot)
	if err != nil {
		t.Fatal(err)
	}
	defer sibling.remove()
	notices = nil
	if _, err := Tree(filepath.Join(parent, "new"), tree.Tree{"a.yaml": []byte("a\n")}, Options{Notice: notice}); err != nil {
		t.Fatal(err)
	}
	if want := "removed " + filepath.Join(parent, dead) + ", the stage directory of a build that did not finish"; strings.Join(notices, "\n") != want {
		t.Errorf("notices %q, want %q", notices, want)
	}
	if _, err := os.Lstat(filepath.Join(parent, sibling.name, markerName)); err != nil {
		t.Errorf("the sibling's live stage was touched: %v", err)
	}
}
