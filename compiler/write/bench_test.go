package write

import (
	"archive/tar"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// xlTree is a synthetic tree shaped like an XL fleet's: 54,000 files in
// 15,000 leaf directories two levels down (tenants/tenant-N/, classes/
// class-N/), a few at the top. Sizes run from 200 B to 20 KB, most small
// (200·100^(u³) for uniform u: median ~360 B, as in a real tree). Seeded,
// so every run writes the same bytes.
func xlTree() tree.Tree {
	r := rand.New(rand.NewPCG(20, 20))
	data := func() []byte {
		n := int(200 * math.Pow(100, math.Pow(r.Float64(), 3)))
		b := bytes.Repeat([]byte("key: value-0123456789\n"), n/22+1)[:n]
		b[0] = byte('a' + r.IntN(26)) // not all alike
		return b
	}
	tr := tree.Tree{}
	for _, top := range []string{"agents", "cluster", "kueue", "nodegroups", "report"} {
		for i := range 3 {
			tr[fmt.Sprintf("%s/f%d.yaml", top, i)] = data()
		}
	}
	tr["kustomization.yaml"] = data()
	for i := range 15000 {
		dir := fmt.Sprintf("tenants/tenant-%d", i)
		if i%7 == 0 {
			dir = fmt.Sprintf("classes/class-%d", i)
		}
		for j := range 3 + i%2 + boolInt(i%5 == 0) {
			tr[fmt.Sprintf("%s/file-%d.yaml", dir, j)] = data()
		}
	}
	return tr
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BenchmarkWriteTree writes xlTree and reports the time as a ratio to a
// floor measured in the same iterations (the machine may be shared, so a
// time alone says little): "ratio" against a sequential os.WriteFile loop
// with no safety check, "tar-ratio" against 'tar -x' of the same files into
// an empty directory. fresh writes a new tree; rebuild writes the same tree
// again (nothing changes; its floor reads and compares every file);
// rewrite changes every file (its floor overwrites every file in place).
// The trees go to $TMPDIR: TMPDIR=/dev/shm times a tmpfs.
func BenchmarkWriteTree(b *testing.B) {
	tr := xlTree()
	paths := tr.Paths()
	base := b.TempDir()
	tarball := filepath.Join(base, "tree.tar")
	haveTar := makeTar(b, tarball, tr) == nil
	if _, err := exec.LookPath("tar"); err != nil {
		haveTar = false
	}
	// n numbers each directory, so no iteration reuses one.
	n := 0
	next := func() string { n++; return filepath.Join(base, fmt.Sprint(n)) }
	plain := func(dir string) {
		for _, p := range paths {
			f := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(f, tr[p], 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	untar := func(dir string) {
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if out, err := exec.Command("tar", "-x", "-f", tarball, "-C", dir).CombinedOutput(); err != nil {
			b.Fatalf("tar: %v\n%s", err, out)
		}
	}
	build := func(dir string, tr tree.Tree, written int) {
		res, err := Tree(dir, tr)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Written) != written {
			b.Fatalf("wrote %d files, want %d", len(res.Written), written)
		}
	}

	b.Run("fresh", func(b *testing.B) {
		var t ratios
		for b.Loop() {
			dirs := []string{next(), next(), next()}
			t.round(func() { build(dirs[0], tr, len(tr)) }, func() { plain(dirs[1]) }, func() {
				if haveTar {
					untar(dirs[2])
				}
			})
			b.StopTimer()
			for _, d := range dirs {
				os.RemoveAll(d)
			}
			b.StartTimer()
		}
		t.report(b, haveTar)
	})

	b.Run("rebuild", func(b *testing.B) {
		out := next()
		build(out, tr, len(tr))
		var t ratios
		for b.Loop() {
			t.round(func() { build(out, tr, 0) }, func() {
				for _, p := range paths {
					got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p)))
					if err != nil || !bytes.Equal(got, tr[p]) {
						b.Fatalf("%s: %v", p, err)
					}
				}
			})
		}
		t.report(b, false)
		os.RemoveAll(out)
	})

	b.Run("rewrite", func(b *testing.B) {
		// Every file changed, its size kept: a new gpufleet's header.
		other := tree.Tree{}
		for p, data := range tr {
			d := bytes.Clone(data)
			d[len(d)-1] ^= 1
			other[p] = d
		}
		out, floor := next(), next()
		build(out, tr, len(tr))
		plain(floor)
		trees := []tree.Tree{other, tr}
		var t ratios
		i := 0
		for b.Loop() {
			now := trees[i%2]
			i++
			t.round(func() { build(out, now, len(now)) }, func() {
				for _, p := range paths {
					if err := os.WriteFile(filepath.Join(floor, filepath.FromSlash(p)), now[p], 0o644); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		t.report(b, false)
		os.RemoveAll(out)
		os.RemoveAll(floor)
	})
}

// BenchmarkPrune removes the half of xlTree's directories a smaller fleet
// no longer generates, with --prune: the floor removes the same files and
// their directories with os.Remove, checking nothing.
func BenchmarkPrune(b *testing.B) {
	full := xlTree()
	AddManifest(full)
	half := tree.Tree{}
	var gone []string
	for _, p := range full.Paths() {
		if d := path.Dir(p); d != "." && d[len(d)-1]%2 == 1 {
			gone = append(gone, p)
		} else {
			half[p] = full[p]
		}
	}
	AddManifest(half)
	base := b.TempDir()
	out, floor := filepath.Join(base, "out"), filepath.Join(base, "floor")
	var t ratios
	for b.Loop() {
		b.StopTimer()
		for _, dir := range []string{out, floor} {
			os.RemoveAll(dir)
			if _, err := Tree(dir, full); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		t.round(func() {
			res, err := Tree(out, half, Options{Prune: true})
			if err != nil || len(res.Pruned) != len(gone) {
				b.Fatalf("pruned %d files, want %d (%v)", len(res.Pruned), len(gone), err)
			}
		}, func() {
			for _, p := range gone {
				f := filepath.Join(floor, filepath.FromSlash(p))
				if err := os.Remove(f); err != nil {
					b.Fatal(err)
				}
				os.Remove(filepath.Dir(f)) // once empty
			}
		})
	}
	t.report(b, false)
}

// ratios sums the time of each contender: 0 is Tree, 1 the plain floor,
// 2 tar.
type ratios struct {
	d      [3]time.Duration
	rounds int
}

// round times each of fs once, in turn, the order reversed every other
// round so that neither goes first on a cache the other warmed.
func (r *ratios) round(fs ...func()) {
	for k := range fs {
		i := k
		if r.rounds%2 == 1 {
			i = len(fs) - 1 - k
		}
		start := time.Now()
		fs[i]()
		r.d[i] += time.Since(start)
	}
	r.rounds++
}

func (r *ratios) report(b *testing.B, tar bool) {
	ms := func(d time.Duration) float64 { return float64(d) / float64(b.N) / 1e6 }
	b.ReportMetric(ms(r.d[0]), "tree-ms")
	b.ReportMetric(ms(r.d[1]), "floor-ms")
	b.ReportMetric(float64(r.d[0])/float64(r.d[1]), "ratio")
	if tar {
		b.ReportMetric(ms(r.d[2]), "tar-ms")
		b.ReportMetric(float64(r.d[0])/float64(r.d[2]), "tar-ratio")
	}
}

// makeTar writes tr to file as a tar archive, directories first.
func makeTar(b *testing.B, file string, tr tree.Tree) error {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	seen := map[string]bool{}
	for _, p := range tr.Paths() {
		for _, d := range parents(p) {
			if !seen[d] {
				seen[d] = true
				if err := w.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755}); err != nil {
					return err
				}
			}
		}
		if err := w.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: p, Mode: 0o644, Size: int64(len(tr[p]))}); err != nil {
			return err
		}
		if _, err := w.Write(tr[p]); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.WriteFile(file, buf.Bytes(), 0o644)
}
