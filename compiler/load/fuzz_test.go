package load_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/load"
)

// fuzzTimeout bounds one input's load: a hang is a finding, not a stall.
const fuzzTimeout = 20 * time.Second

// FuzzLoad writes arbitrary bytes as a .yaml, a .json and a .cue spec and
// loads each. Load must not panic or hang, and every error it returns must
// be a diag.List whose entries all carry a message.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("cluster: {}\n"))
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		for _, name := range []string{"y/fleet.yaml", "j/fleet.json", "c/fleet.cue"} {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := load.Load([]string{p})
				done <- err
			}()
			select {
			case err := <-done:
				checkDiags(t, name, err)
			case <-time.After(fuzzTimeout):
				t.Fatalf("%s: load did not finish within %v", name, fuzzTimeout)
			}
		}
	})
}

func checkDiags(t *testing.T, name string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	l, ok := err.(diag.List)
	if !ok {
		t.Fatalf("%s: error is %T, not diag.List: %v", name, err, err)
	}
	if len(l) == 0 {
		t.Fatalf("%s: empty diag.List returned as an error", name)
	}
	for _, d := range l {
		if d.Msg == "" {
			t.Fatalf("%s: diagnostic with no message: %+v", name, d)
		}
	}
}
