package render

import (
	"reflect"
	"slices"
	"testing"

	"github.com/google/cel-go/cel"
)

// TestCELStrings: a spec's usernames, whatever they hold, are CEL string
// literals that evaluate to themselves, never CEL: a name that closes the
// list and appends `|| true` stays one string. (Invalid UTF-8 would not
// round-trip, CEL reading \xHH as a code point: vet refuses it.)
func TestCELStrings(t *testing.T) {
	env, err := cel.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	names := []string{
		"system:serviceaccount:ray-system:kuberay-operator",
		`"] || true || ["`,
		`'] || true || ['`,
		"back\\slash\nnew line\ttab \x00 nul",
		"ünïcödé \u2028 \U0001F600",
	}
	ast, iss := env.Compile(celStrings(names))
	if iss.Err() != nil {
		t.Fatalf("%s: %v", celStrings(names), iss.Err())
	}
	prg, err := env.Program(ast)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := prg.Eval(map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := out.ConvertToNative(reflectStrings)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.([]string), names) {
		t.Errorf("celStrings round trip:\n got %q\nwant %q", got, names)
	}
}

var reflectStrings = reflect.TypeFor[[]string]()
