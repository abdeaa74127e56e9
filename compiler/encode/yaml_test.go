package encode_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/encode"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// Marshal skips sigs.k8s.io/yaml's JSON-to-YAML round trip for speed; it
// must write the very bytes that library writes. Every document of every
// example fleet and of a generated M fleet, plus values chosen for go-yaml's
// number and string resolution, is encoded both ways.
func TestMarshalMatchesSigsYAML(t *testing.T) {
	var docs [][]byte
	fleets := renderedFleets(t)
	spec := filepath.Join(t.TempDir(), "m.json")
	if err := os.WriteFile(spec, fleetgen.JSON(fleetgen.Generate(1, fleetgen.M, fleetgen.Options{Buildable: true})), 0o644); err != nil {
		t.Fatal(err)
	}
	fleets["generated-M"] = renderFleet(t, spec)
	for name, r := range fleets {
		for _, p := range r.Tree.Paths() {
			if !strings.HasSuffix(p, ".yaml") {
				continue
			}
			// A file re-encoded from its own documents comes out the same.
			var objs []any
			for _, doc := range bytes.Split(bytes.TrimPrefix(r.Tree[p], []byte(tree.Header)), []byte("\n---\n")) {
				var m map[string]any
				if err := yaml.Unmarshal(doc, &m); err != nil {
					t.Fatalf("%s/%s: %v", name, p, err)
				}
				objs = append(objs, m)
				docs = append(docs, doc)
			}
			again, err := encode.Marshal(objs...)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, r.Tree[p]) {
				t.Errorf("%s/%s: re-encoding its documents changes it:\n%s\nwant:\n%s", name, p, again, r.Tree[p])
			}
		}
	}
	if len(docs) < 1000 {
		t.Fatalf("only %d documents compared", len(docs))
	}
	edge := map[string]any{
		"ints":    []any{0, 1, -1, 42, 1 << 40, -(1 << 52), 1<<53 + 2, math.MaxInt64, uint64(math.MaxUint64)},
		"floats":  []any{0.5, -0.25, 1.5e-7, 1e20, 1e21, 1.25e300, math.Copysign(0, -1), 2.0, 1e15, 123456789.125},
		"strings": []any{"", "1", "1.5", "-0", "0x10", "1e3", "yes", "no", "y", "n", "on", "off", "true", "False", "null", "~", "a: b", "- x", "#c", "multi\nline", "trailing ", " leading", "'q'", "\"dq\"", "ünï", "@at", "`tick", "100Gi", "500m", "NoSchedule"},
		"empty":   map[string]any{"m": map[string]any{}, "s": []any{}, "nil": nil},
		"nested":  []any{[]any{1, "2"}, map[string]any{"10": 1, "9": 2, "a": 3, "B": 4}},
	}
	for _, v := range []any{edge, map[string]any{"metadata": map[string]any{"labels": map[string]any{"x": "1"}}}} {
		got, err := encode.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		want, err := yaml.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tree.Header+string(want) {
			t.Errorf("Marshal differs from sigs.k8s.io/yaml:\n%s\nwant:\n%s", got, want)
		}
	}
}
