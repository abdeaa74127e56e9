package load_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/load"
)

// A .cue file that is not text is refused at its first offending byte, in
// one error, however long it is. CUE's scanner reported an error per illegal
// byte and gathered them in quadratic time: the MiB here (after an "a", so
// that CUE does not stop at the first byte) took 227 s before.
func TestNotTextIsRefusedFast(t *testing.T) {
	data := make([]byte, 1<<20)
	r := rand.New(rand.NewPCG(7, 7))
	for i := range data {
		if data[i] = byte(r.Uint32()); data[i] == 0 {
			data[i] = 0xff // NUL stops CUE's scanner early; the rest does not
		}
	}
	data[0] = 'a'
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"random.cue", data, "fleet.cue:1:"},
		{"nul.cue", []byte("package fleet\ncluster: name: \"a\x00b\"\n"), ":2:18: control character U+0000: a spec must be UTF-8 text"},
		{"latin1.cue", []byte("package fleet\ncluster: name: \"d\xe9mo\"\n"), ":2:18: invalid UTF-8 byte 0xe9: a spec must be UTF-8 text"},
		{"bom.cue", []byte("package fleet\n\ufeffcluster: {}\n"), ":2:1: byte order mark after the start: a spec must be UTF-8 text"},
		{"escape.cue", []byte("package fleet\ncluster: name: \"\x1b[31m\"\n"), ":2:17: control character U+001B"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "fleet.cue")
			if err := os.WriteFile(f, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err := load.Load([]string{f})
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			var dl diag.List
			if !errors.As(err, &dl) || len(dl) != 1 || !strings.Contains(dl[0].String(), tc.want) {
				t.Fatalf("got %v, want one error containing %q", err, tc.want)
			}
		})
	}
	// Text a spec may hold: tabs, carriage returns, a leading byte order
	// mark, and any printable Unicode.
	f := filepath.Join(t.TempDir(), "fleet.cue")
	if err := os.WriteFile(f, []byte("\ufeffpackage fleet\r\n\t// é, 日本, 🚀\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := load.Load([]string{f})
	if err == nil || strings.Contains(err.Error(), "UTF-8 text") {
		t.Fatalf("text refused as not text: %v", err)
	}
}

// Load gives up after EvalTimeout, with an error, rather than stall CI on a
// spec CUE evaluates in quadratic time: here 20,000 unresolved references,
// valid text, which take CUE over a second to gather.
func TestLoadIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("package fleet\n")
	for i := range 20000 {
		fmt.Fprintf(&b, "a%d: b%d\n", i, i)
	}
	f := filepath.Join(t.TempDir(), "fleet.cue")
	if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(d time.Duration) { load.EvalTimeout = d }(load.EvalTimeout)
	load.EvalTimeout = 50 * time.Millisecond
	start := time.Now()
	_, err := load.Load([]string{f})
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Load returned after %v", d)
	}
	if err == nil || !strings.Contains(err.Error(), "took more than 50ms, so gpufleet stopped") {
		t.Fatalf("got %v", err)
	}
}
