package load

import (
	"fmt"
	"strings"
	"testing"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"

	"github.com/gpufleet/gpufleet/schema"
)

// dependents lists every reference in a schema source that reads a split
// section of #Fleet (pools, classes, tenants) or #Fleet itself: what would
// make one entry's evaluation depend on entries another shard holds.
func dependents(name string, src []byte) ([]string, error) {
	f, err := parser.ParseFile(name, src)
	if err != nil {
		return nil, err
	}
	forbidden := map[ast.Node]string{}
	for _, d := range f.Decls {
		fl, ok := d.(*ast.Field)
		if !ok {
			continue
		}
		if label, _, _ := ast.LabelName(fl.Label); label != "#Fleet" {
			continue
		}
		// A reference resolves to the value of the field it names.
		forbidden[fl.Value] = "#Fleet"
		st, _ := fl.Value.(*ast.StructLit)
		if st == nil {
			return nil, fmt.Errorf("#Fleet is not a struct")
		}
		for _, e := range st.Elts {
			if ef, ok := e.(*ast.Field); ok {
				if n, _, _ := ast.LabelName(ef.Label); shardedSections[n] {
					forbidden[ef.Value] = n
				}
			}
		}
	}
	if len(forbidden) < 1+len(shardedSections) {
		return nil, fmt.Errorf("#Fleet or one of its sections %v is missing", shardedSections)
	}
	var found []string
	ast.Walk(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Node != nil {
			if what, bad := forbidden[id.Node]; bad {
				found = append(found, fmt.Sprintf("%s: a reference to %s", id.Pos(), what))
			}
		}
		return true
	}, nil)
	return found, nil
}

// The schema relates no two entries of a split section, nor anything to
// them, which is what lets shards evaluate them apart (shard.go).
func TestSchemaEntriesIndependent(t *testing.T) {
	for _, f := range schema.Files() {
		found, err := dependents(f.Name, f.Data)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		for _, s := range found {
			t.Errorf("%s: sharded evaluation would differ from CUE's whole evaluation; evaluate data specs whole (shardCount) or remove the reference", s)
		}
	}
}

// The check finds what it must: references across entries, and
// references to #Fleet, but not a field of an entry naming its own.
func TestDependentsFound(t *testing.T) {
	base := string(schema.Files()[0].Data)
	for _, tc := range []struct {
		name, old, new string
		want           int
	}{
		{"none", "", "", 0},
		{"entry to section", "#Tenant: {\n", "#Tenant: {\n\tc: [...or([for k, _ in #Fleet.classes {k}])]\n", 1},
		{"section to section", "#Fleet: {\n", "#Fleet: {\n\ttenants: [string]: classCount: len(classes)\n", 1},
		{"field of #Fleet", "#Fleet: {\n", "#Fleet: {\n\tpoolCount: len(pools)\n", 1},
		{"own field", "#Tenant: {\n", "#Tenant: {\n\tn: len(classes)\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(base, tc.old) {
				t.Fatalf("the schema has no %q", tc.old)
			}
			found, err := dependents("fleet.cue", []byte(strings.Replace(base, tc.old, tc.new, 1)))
			if err != nil {
				t.Fatal(err)
			}
			if len(found) != tc.want {
				t.Errorf("found %d (%s), want %d", len(found), strings.Join(found, "; "), tc.want)
			}
		})
	}
}
