package compiler_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/diag"
)

// fuzzTimeout bounds one input's compile: a hang is a finding, not a stall.
const fuzzTimeout = 30 * time.Second

// FuzzCompile runs arbitrary bytes, as a YAML spec, through the whole
// compile. It must not panic or hang, and every error must be a diag.List
// whose entries all carry a message.
func FuzzCompile(f *testing.F) {
	f.Add([]byte("cluster: {}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "fleet.yaml")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := compiler.Compile([]string{p})
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(fuzzTimeout):
			t.Fatalf("compile did not finish within %v", fuzzTimeout)
		}
		if err == nil {
			return
		}
		l, ok := err.(diag.List)
		if !ok {
			t.Fatalf("error is %T, not diag.List: %v", err, err)
		}
		if len(l) == 0 {
			t.Fatal("empty diag.List returned as an error")
		}
		for _, d := range l {
			if d.Msg == "" {
				t.Fatalf("diagnostic with no message: %+v", d)
			}
		}
	})
}
