//go:build unix

package write

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// A named pipe where a generated file goes is neither opened (a read would
// block CI forever) nor written through.
func TestNamedPipeIsBlocked(t *testing.T) {
	gen := tree.Tree{"a.yaml": []byte("a\n")}
	out, _ := hostile(t, gen)
	pipe := filepath.Join(out, "a.yaml")
	replaceWithLink(t, "x", pipe) // clears the file; the pipe replaces the link
	if err := syscall.Unlink(pipe); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	ch, err := Compare(out, gen)
	if err != nil || len(ch) != 1 || ch[0].Kind != "blocked" || ch[0].Reason != "is not a regular file, gpufleet writes a regular file" {
		t.Fatalf("changes %+v, err %v", ch, err)
	}
	if _, err := Tree(out, gen); err == nil || !strings.Contains(err.Error(), "a.yaml: it is not a regular file") {
		t.Fatalf("err = %v, want 'it is not a regular file'", err)
	}
}
