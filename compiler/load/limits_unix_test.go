//go:build unix

package load_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A named pipe is refused rather than read: reading one may never end.
func TestSpecNotRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fleet.yaml")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	if msg := loadErr(t, p); !strings.Contains(msg, p+": not a regular file") {
		t.Errorf("got:\n%s", msg)
	}
}
