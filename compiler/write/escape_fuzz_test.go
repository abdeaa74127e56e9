package write

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// FuzzTreeEscape plants a stranger's tree in out/ and runs what build,
// build --prune and diff run on it. Whatever the tree, nothing outside
// out/ changes or appears, and no diff shows the sentinel's content.
//
// The input is one instruction a line:
//
//	f PATH         a regular file
//	h PATH         a file with gpufleet's header
//	d PATH         a directory
//	l PATH TARGET  a symbolic link; TARGET "OUT..." is below outside/
//	m LINE         a line of the manifest, as is
//	O              out/ itself a link to outside/
func FuzzTreeEscape(f *testing.F) {
	for _, seed := range escapeSeeds() {
		f.Add(seed)
	}
	f.Fuzz(escape)
}

var fuzzSentinel = tree.Header + "a: " + fuzzSecret + "\n"

func escapeSeeds() []string {
	sum := func(s string) string { b := sha256.Sum256([]byte(s)); return hex.EncodeToString(b[:]) }
	return []string{
		"",
		"l sub OUT",
		"l a.yaml OUT/a.yaml",
		"l a.yaml OUT/secret.env",
		"l sub/b.yaml ../../outside/secret.env\nd sub",
		"d sub\nl sub/b.yaml OUT/sub/b.yaml",
		"l sub ../outside\nm sub/b.yaml\nm " + sum(fuzzSentinel) + "  sub/b.yaml",
		"l old OUT\nm old/a.yaml\nm " + sum(fuzzSentinel) + "  old/a.yaml",
		"m ../outside/a.yaml\nm /etc/passwd\nm .\nm ..",
		"f a.yaml\nh gone.yaml\nm gone.yaml\nm README\nf README",
		"d sub\nd sub/deep\nl sub/deep/c.yaml ../../../outside/sub/b.yaml",
		"l .gpufleet-manifest OUT/manifest",
		"O",
		"l x OUT\nl sub x",
		"d sub/deep/c.yaml",
		"f sub",
		"m sub/b.yaml\u2028\nf sub\u00a0b\nm a\rb",
	}
}

// escape plants prog's tree in out/ and runs build, build --prune and diff
// on it: nothing outside out/ may change.
func escape(t *testing.T, prog string) {
	base := t.TempDir()
	out, outside := filepath.Join(base, "out"), filepath.Join(base, "outside")
	for p, data := range map[string]string{"a.yaml": fuzzSentinel, "sub/b.yaml": fuzzSentinel, "manifest": "a.yaml\n", "secret.env": fuzzSecret} {
		mustWrite(t, filepath.Join(outside, p), data)
	}
	plant(t, base, out, outside, prog)
	before := snapshot(t, base)

	gen := tree.Tree{"a.yaml": []byte(tree.Header + "a: 1\n"), "sub/b.yaml": []byte(tree.Header + "b: 1\n"), "sub/deep/c.yaml": []byte("c\n")}
	AddManifest(gen)
	small := tree.Tree{"a.yaml": []byte(tree.Header + "a: 2\n")}
	AddManifest(small)
	compare(t, out, gen)
	if _, err := Tree(out, gen); err == nil {
		for p, want := range gen {
			fi, err := os.Lstat(filepath.Join(out, p))
			if p == ManifestPath {
				want = mustRead(t, filepath.Join(out, p)) // it also keeps what earlier builds own
			}
			if err != nil || !fi.Mode().IsRegular() || !bytes.Equal(mustRead(t, filepath.Join(out, p)), want) {
				t.Errorf("Tree succeeded but %s is not what it wrote", p)
			}
		}
	}
	compare(t, out, gen)
	Tree(out, small, Options{Prune: true})
	compare(t, out, gen)
	Tree(out, gen, Options{Prune: true})

	if after := snapshot(t, base); after != before {
		t.Fatalf("outside out/ changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

const fuzzSecret = "SENTINEL-d6f1c0"

// plant builds the tree prog describes in out. It goes through an
// os.Root, and every link's target stays below base, so that planting
// never writes outside out/ and a bug cannot reach the machine's files.
func plant(t *testing.T, base, out, outside, prog string) {
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(out)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var manifest strings.Builder
	lines := strings.Split(prog, "\n")
	if len(lines) > 32 {
		lines = lines[:32]
	}
	linkOut := false
	for _, line := range lines {
		op, arg, _ := strings.Cut(line, " ")
		switch op {
		case "f":
			root.WriteFile(arg, []byte("x\n"), 0o644)
		case "h":
			root.WriteFile(arg, []byte(tree.Header+"x: 1\n"), 0o644)
		case "d":
			root.MkdirAll(arg, 0o755)
		case "m":
			manifest.WriteString(arg + "\n")
		case "O":
			linkOut = true
		case "l":
			name, target, _ := strings.Cut(arg, " ")
			if rest, ok := strings.CutPrefix(target, "OUT"); ok {
				target = outside + rest
			}
			at := filepath.Join(out, name)
			resolved := target
			if !filepath.IsAbs(target) {
				resolved = filepath.Join(filepath.Dir(at), target)
			}
			if rel, err := filepath.Rel(base, resolved); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				target = outside // never out of base
			}
			root.Symlink(target, name)
		}
	}
	if manifest.Len() > 0 {
		root.WriteFile(ManifestPath, []byte(manifest.String()), 0o644)
	}
	if linkOut {
		if err := os.Rename(out, out+".real"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, out); err != nil {
			t.Fatal(err)
		}
	}
}

func compare(t *testing.T, out string, gen tree.Tree) {
	changes, _ := Compare(out, gen)
	for _, c := range changes {
		if strings.Contains(c.Diff+c.Reason, fuzzSecret) {
			t.Fatalf("Compare showed what is outside the tree: %+v", c)
		}
	}
}

// snapshot lists everything below base but out/ (and out.real/): paths,
// kinds, link targets and file contents. It follows no link.
func snapshot(t *testing.T, base string) string {
	var b strings.Builder
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(base, p)
		if rel == "out" || rel == "out.real" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		b.WriteString(rel + " " + d.Type().String())
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			b.WriteString(" -> " + target)
		case d.Type().IsRegular():
			b.WriteString(" " + string(mustRead(t, p)))
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func mustWrite(t *testing.T, p, data string) {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
