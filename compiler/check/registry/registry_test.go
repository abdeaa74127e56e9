package registry

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check"
)

// Every ID constant under compiler/check is registered once, with a
// severity, what it proves and the function that runs it, and is declared
// in the file named after the check.
func TestRegistry(t *testing.T) {
	declared := map[check.ID]string{} // ID → its file
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok && isID(vs.Type) {
				for _, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok {
						id := check.ID(strings.Trim(lit.Value, `"`))
						if prev, ok := declared[id]; ok {
							t.Errorf("%s is declared in %s and %s", id, prev, path)
						}
						declared[id] = path
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(declared) != len(Checks) {
		t.Errorf("%d ID constants, %d registered checks", len(declared), len(Checks))
	}
	for id, file := range declared {
		if want := strings.ToLower(string(id)) + ".go"; filepath.Base(file) != want {
			t.Errorf("%s is declared in %s, not %s", id, file, want)
		}
	}
	seen := map[check.ID]bool{}
	for _, c := range Checks {
		if seen[c.ID] {
			t.Errorf("%s registered twice", c.ID)
		}
		seen[c.ID] = true
		if c.Severity != check.Error && c.Severity != check.Warning || c.Proves == "" {
			t.Errorf("%s: severity %q, proves %q", c.ID, c.Severity, c.Proves)
		}
		if !c.Run.Defined() {
			t.Errorf("%s: nothing runs it at its stage %d", c.ID, c.Run.Stage)
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
	for _, c := range OnLiveNodes() {
		if c.Run.Stage != check.StageQueue {
			t.Errorf("%s runs on live nodes, but not on each queue", c.ID)
		}
	}
}

// isID reports whether a declaration's type is check.ID (or ID in
// package check).
func isID(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "ID"
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && x.Name == "check" && e.Sel.Name == "ID"
	}
	return false
}
