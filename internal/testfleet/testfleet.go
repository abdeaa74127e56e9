// Package testfleet writes fleet specs for tests.
package testfleet

import (
	"os"
	"path/filepath"
	"testing"
)

// Write puts spec in a fresh temporary directory as fleet.cue and returns
// its path.
func Write(t testing.TB, spec string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "fleet.cue")
	if err := os.WriteFile(f, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}
