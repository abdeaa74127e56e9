package check

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// Every ID constant is registered once, with a severity, what it proves
// and the function that runs it.
func TestRegistry(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "registry.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var consts []string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "ID" {
				for _, name := range vs.Names {
					consts = append(consts, name.Name)
				}
			}
		}
		return true
	})
	if len(consts) != len(Registry) {
		t.Errorf("%d ID constants, %d registered checks", len(consts), len(Registry))
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
	if _, ok := Lookup("NoSuchCheck"); ok {
		t.Error("Lookup found an unregistered check")
	}
}
