package check

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// Every ID constant is registered once, with a severity, what it proves
// and the function that runs it, and is declared in the file named after
// the check.
func TestRegistry(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	declared := map[ID]string{} // ID → its file
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok {
				if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "ID" {
					for _, v := range vs.Values {
						if lit, ok := v.(*ast.BasicLit); ok {
							declared[ID(strings.Trim(lit.Value, `"`))] = name
						}
					}
				}
			}
			return true
		})
	}
	if len(declared) != len(Registry) {
		t.Errorf("%d ID constants, %d registered checks", len(declared), len(Registry))
	}
	for id, file := range declared {
		if want := strings.ToLower(string(id)) + ".go"; file != want {
			t.Errorf("%s is declared in %s, not %s", id, file, want)
		}
	}
	seen := map[ID]bool{}
	for _, c := range Registry {
		if seen[c.ID] {
			t.Errorf("%s registered twice", c.ID)
		}
		seen[c.ID] = true
		if c.Severity != Error && c.Severity != Warning || c.Proves == "" {
			t.Errorf("%s: severity %q, proves %q", c.ID, c.Severity, c.Proves)
		}
		r := c.Run
		if funcs := map[Stage]bool{StageRow: r.row != nil, StageCluster: r.cluster != nil, StageKueue: r.kueue != nil, StageQueue: r.queue != nil}; !funcs[r.Stage] {
			t.Errorf("%s: nothing runs it at its stage %d", c.ID, r.Stage)
		}
		if got, ok := Lookup(c.ID); !ok || got.ID != c.ID {
			t.Errorf("Lookup(%s) = %v, %v", c.ID, got, ok)
		}
	}
	for id := range declared {
		if !seen[id] {
			t.Errorf("%s is not registered", id)
		}
	}
	if _, ok := Lookup("NoSuchCheck"); ok {
		t.Error("Lookup found an unregistered check")
	}
}
