package compiler_test

import (
	"slices"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
)

// Options.Evaluated is called once, before decoding; Options.Dropped is
// called once, after derive, when the loaded spec is no
// longer held: the CLI caps the heap there (internal/cli/gc.go), which
// is only right once the spec can be collected.
func TestDroppedOnceAfterDerive(t *testing.T) {
	dir := exampleFleets(t)[0]
	var calls []string
	res, err := compiler.CompileWith([]string{dir}, compiler.Options{
		Evaluated: func() { calls = append(calls, "Evaluated") },
		Dropped:   func() { calls = append(calls, "Dropped") },
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Evaluated", "Dropped"}; !slices.Equal(calls, want) {
		t.Errorf("hooks called %v, want %v", calls, want)
	}
	if compiler.HoldsSpec(res) {
		t.Error("the result still holds the loaded spec")
	}
	if _, err := compiler.CompileWith([]string{"testdata/no-such-spec"}, compiler.Options{Dropped: func() { t.Error("Dropped called for a spec that did not load") }}); err == nil {
		t.Fatal("compiled a spec that does not exist")
	}
}
