package load_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/load"
)

// loadErr loads paths, requires a diag.List error and returns its text.
func loadErr(t *testing.T, paths ...string) string {
	t.Helper()
	_, err := load.Load(paths)
	if err == nil {
		t.Fatalf("%v loaded", paths)
	}
	if _, ok := err.(diag.List); !ok {
		t.Fatalf("error is %T, not diag.List: %v", err, err)
	}
	return err.Error()
}

// A spec over MaxSpecBytes is refused before it is read: CUE's cost grows
// faster than linearly with input size (a 4 MB YAML list took 83 s).
func TestSpecTooLarge(t *testing.T) {
	dir := t.TempDir()
	big := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(load.MaxSpecBytes + 1); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, p := range []string{big("a.yaml"), big("a.json"), big("c/a.cue"), filepath.Join(dir, "c")} {
		start := time.Now()
		msg := loadErr(t, p)
		if !strings.Contains(msg, "spec file too large") || !strings.Contains(msg, p) {
			t.Errorf("%s: want a positioned size error, got:\n%s", p, msg)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: took %v", p, d)
		}
	}
}

// CUE's YAML decoder bounds alias expansion; the error names the file and
// line once.
func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString(`a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i < 9; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	p := filepath.Join(t.TempDir(), "bomb.yaml")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	msg := loadErr(t, p)
	if want := p + ":1:1: aliases expand to more than"; !strings.HasPrefix(msg, want) {
		t.Errorf("want prefix %q, got:\n%s", want, msg)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}
