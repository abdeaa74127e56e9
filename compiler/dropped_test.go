package compiler_test

import (
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
)

// Options.Dropped is called once, after derive, when the loaded spec is no
// longer held: the CLI caps the heap there (internal/cli/gc.go), which
// is only right once the spec can be collected.
func TestDroppedOnceAfterDerive(t *testing.T) {
	dir := exampleFleets(t)[0]
	calls := 0
	res, err := compiler.CompileWith([]string{dir}, compiler.Options{Dropped: func() { calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("Dropped called %d times, want 1", calls)
	}
	if compiler.HoldsSpec(res) {
		t.Error("the result still holds the loaded spec")
	}
	if _, err := compiler.CompileWith([]string{"testdata/no-such-spec"}, compiler.Options{Dropped: func() { t.Error("Dropped called for a spec that did not load") }}); err == nil {
		t.Fatal("compiled a spec that does not exist")
	}
}
