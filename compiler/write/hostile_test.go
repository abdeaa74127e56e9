package write

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// The output tree arrives in the same pull request as the spec, so these
// tests plant what a stranger could commit: symbolic links out of the tree,
// a hand-edited manifest, files that look generated but are not.

const secret = "SECRET=hunter2\n"

// hostile returns out (the output directory, already built from gen) and
// outside, a sibling directory holding secret.txt and b.yaml, which no
// write may change.
func hostile(t *testing.T, gen tree.Tree) (out, outside string) {
	t.Helper()
	parent := t.TempDir()
	out, outside = filepath.Join(parent, "out"), filepath.Join(parent, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"secret.txt": secret, "b.yaml": tree.Header + "b: outside\n"} {
		if err := os.WriteFile(filepath.Join(outside, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Tree(out, gen); err != nil {
		t.Fatal(err)
	}
	return out, outside
}

func replaceWithLink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.RemoveAll(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func outsideIntact(t *testing.T, outside string) {
	t.Helper()
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || read(t, filepath.Join(outside, "secret.txt")) != secret ||
		read(t, filepath.Join(outside, "b.yaml")) != tree.Header+"b: outside\n" {
		t.Errorf("the directory outside the tree changed: %v", entries)
	}
}

func withManifest(tr tree.Tree) tree.Tree { AddManifest(tr); return tr }

// Compare never reads through a link: a link to a secret is reported, and
// the secret is not in the diff.
func TestCompareDoesNotFollowSymlinks(t *testing.T) {
	gen := tree.Tree{"a.yaml": []byte("a\n"), "sub/b.yaml": []byte("b\n")}
	out, outside := hostile(t, gen)
	replaceWithLink(t, filepath.Join(outside, "secret.txt"), filepath.Join(out, "a.yaml"))
	replaceWithLink(t, outside, filepath.Join(out, "sub"))
	ch, err := Compare(out, gen)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 2 {
		t.Fatalf("changes %+v, want a.yaml and sub/b.yaml", ch)
	}
	for _, c := range ch {
		if strings.Contains(c.Diff+c.Reason, "SECRET") || strings.Contains(c.Diff+c.Reason, "outside") {
			t.Errorf("%s: the link's target leaked: %+v", c.Path, c)
		}
		if c.Kind != "blocked" {
			t.Errorf("%s: kind %q, want blocked", c.Path, c.Kind)
		}
	}
	if ch[0].Reason != "is a symbolic link, gpufleet writes a regular file" ||
		ch[1].Reason != "sub is a symbolic link, gpufleet writes a directory there" {
		t.Errorf("reasons %q, %q", ch[0].Reason, ch[1].Reason)
	}
}

// A generated path with a link on its way is refused before anything is
// written, and nothing appears outside the tree.
func TestTreeRefusesSymlinks(t *testing.T) {
	gen := tree.Tree{"a.yaml": []byte("a\n"), "sub/b.yaml": []byte("b\n")}
	for _, tc := range []struct{ link, target, want string }{
		{"sub", "outside", "sub is a symbolic link"},
		{"a.yaml", "outside/secret.txt", "a.yaml: it is a symbolic link"},
		{"sub/b.yaml", "outside/b.yaml", "b.yaml: it is a symbolic link"},
	} {
		t.Run(tc.link, func(t *testing.T) {
			out, outside := hostile(t, gen)
			replaceWithLink(t, filepath.Join(filepath.Dir(outside), tc.target), filepath.Join(out, tc.link))
			changed := tree.Tree{"a.yaml": []byte("CHANGED\n"), "sub/b.yaml": []byte("CHANGED\n")}
			_, err := Tree(out, changed)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			outsideIntact(t, outside)
			if fi, err := os.Lstat(filepath.Join(out, tc.link)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link %s was replaced", tc.link)
			}
			if tc.link != "a.yaml" && read(t, filepath.Join(out, "a.yaml")) != "a\n" {
				t.Error("a.yaml was written although the build was refused")
			}
			noStage(t, out)
			noStage(t, filepath.Dir(out))
		})
	}
}

// The output directory itself may not be a link the pull request put
// there; the directories above an absolute -o are the machine's.
func TestTreeRefusesLinkedOutputDir(t *testing.T) {
	parent := t.TempDir()
	real := filepath.Join(parent, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, "out")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Tree(link, tree.Tree{"a.yaml": []byte("a\n")}); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Fatalf("err = %v, want 'is a symbolic link'", err)
	}
	if _, err := Compare(link, tree.Tree{"a.yaml": []byte("a\n")}); err == nil {
		t.Fatal("Compare read through a linked output directory")
	}
	if entries, _ := os.ReadDir(real); len(entries) != 0 {
		t.Errorf("wrote through the link: %v", entries)
	}
	// Through a linked parent, an absolute path is the user's choice.
	via := filepath.Join(parent, "via")
	if err := os.Symlink(parent, via); err != nil {
		t.Fatal(err)
	}
	if _, err := Tree(filepath.Join(via, "real"), tree.Tree{"a.yaml": []byte("a\n")}); err != nil {
		t.Fatal(err)
	}
}

// An absolute -o into the working directory (the checkout) is held as a
// relative one: a committed link on the way is refused, as a pull request
// that turned gitops/ into a link redirected CI's absolute
// $GITHUB_WORKSPACE/gitops/out.
func TestAbsoluteOutputIntoCheckout(t *testing.T) {
	checkout, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(checkout, "gitops")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(checkout)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(wd, "gitops", "out")
	if _, err := Tree(out, tree.Tree{"a.yaml": []byte("a\n")}); err == nil || !strings.Contains(err.Error(), "gitops is a symbolic link") {
		t.Fatalf("err = %v, want 'gitops is a symbolic link'", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("wrote through the link: %v", entries)
	}
}

// Prune deletes nothing through a link, however the manifest reads.
func TestPruneDoesNotFollowSymlinks(t *testing.T) {
	gen := withManifest(tree.Tree{"a.yaml": []byte("a\n"), "sub/b.yaml": []byte(tree.Header + "b: outside\n")})
	out, outside := hostile(t, gen)
	replaceWithLink(t, outside, filepath.Join(out, "sub"))
	if _, err := Tree(out, withManifest(tree.Tree{"a.yaml": []byte("a\n")}), Options{Prune: true}); err != nil {
		t.Fatal(err)
	}
	outsideIntact(t, outside)
}

// A manifest is an ordinary committed file: listing a user's file in it
// does not make prune delete that file.
func TestPruneKeepsFilesGpufleetDidNotWrite(t *testing.T) {
	gen := withManifest(tree.Tree{"a.yaml": []byte("a\n"), "old/b.yaml": []byte(tree.Header + "b\n")})
	out, _ := hostile(t, gen)
	mine := filepath.Join(out, "README.md")
	if err := os.WriteFile(mine, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// An old-style manifest (paths only) that a user extended by hand.
	if err := os.WriteFile(filepath.Join(out, ManifestPath), []byte("README.md\nold/b.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Tree(out, withManifest(tree.Tree{"a.yaml": []byte("a\n")}), Options{Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if read(t, mine) != "mine\n" {
		t.Error("README.md, listed by hand, was pruned")
	}
	if strings.Join(res.Pruned, ",") != "old/b.yaml" {
		t.Errorf("pruned %v, want old/b.yaml (it carries gpufleet's header)", res.Pruned)
	}
}

// A generated file edited since is the user's now: prune leaves it and
// says so.
func TestPruneKeepsModifiedFile(t *testing.T) {
	gen := withManifest(tree.Tree{"a.yaml": []byte("a\n"), "old/b.yaml": []byte(tree.Header + "b\n"), "old/c.yaml": []byte("c\n")})
	out, _ := hostile(t, gen)
	edited := filepath.Join(out, "old", "b.yaml")
	if err := os.WriteFile(edited, []byte(tree.Header+"b: edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Tree(out, withManifest(tree.Tree{"a.yaml": []byte("a\n")}), Options{Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if read(t, edited) != tree.Header+"b: edited\n" {
		t.Error("a modified file was pruned")
	}
	if strings.Join(res.Pruned, ",") != "old/c.yaml" {
		t.Errorf("pruned %v, want old/c.yaml", res.Pruned)
	}
	if len(res.Kept) != 1 || res.Kept[0].Path != "old/b.yaml" || !strings.Contains(res.Kept[0].Reason, "modified") {
		t.Errorf("kept %+v, want old/b.yaml as modified", res.Kept)
	}
}

// The filesystem root is never an output tree. The tree holds one unique
// path, so that a regression as root writes (and cleans up) only that.
func TestRefusesFilesystemRoot(t *testing.T) {
	uniq := "gpufleet-root-test-" + filepath.Base(t.TempDir())
	t.Cleanup(func() { os.RemoveAll(filepath.Join("/", uniq)) })
	gen := tree.Tree{uniq + "/a.yaml": []byte("a\n")}
	if _, err := Tree("/", gen); err == nil || !strings.Contains(err.Error(), "filesystem root") {
		t.Errorf("Tree(/): err = %v, want 'filesystem root'", err)
	}
	if _, err := os.Lstat(filepath.Join("/", uniq)); err == nil {
		t.Errorf("wrote /%s", uniq)
	}
}

// A generated path that is one of the spec files is never overwritten.
func TestRefusesOverwritingSpec(t *testing.T) {
	out := t.TempDir()
	spec := filepath.Join(out, "kustomization.yaml")
	if err := os.WriteFile(spec, []byte("cluster: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Tree(out, tree.Tree{"kustomization.yaml": []byte("k\n")}, Options{Inputs: []string{spec}})
	if err == nil || !strings.Contains(err.Error(), "is the spec") {
		t.Fatalf("err = %v, want 'is the spec'", err)
	}
	if read(t, spec) != "cluster: {}\n" {
		t.Error("the spec was overwritten")
	}
	// A spec given as its directory is protected the same way.
	if _, err := Tree(out, tree.Tree{"kustomization.yaml": []byte("k\n")}, Options{Inputs: []string{out}}); err == nil {
		t.Fatal("overwrote a file of a spec directory")
	}
}
