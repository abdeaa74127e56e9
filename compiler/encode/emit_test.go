package encode_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goyaml "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/encode"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// The emitter writes what go-yaml writes for every document of the example
// fleets and of generated fleets (the tricky one has taints, tolerations and
// affinity of every kind), and it knows how to write nearly all of them
// itself: a fallback for most documents would make it pointless.
func TestEmitMatchesGoYAML(t *testing.T) {
	fleets := renderedFleets(t)
	dir := t.TempDir()
	for name, opts := range map[string]fleetgen.Options{"L": {Buildable: true}, "M-tricky": {Tricky: true}} {
		size := fleetgen.L
		if name == "M-tricky" {
			size = fleetgen.M
		}
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, fleetgen.JSON(fleetgen.Generate(7, size, opts)), 0o644); err != nil {
			t.Fatal(err)
		}
		fleets[name] = renderFleet(t, p)
	}
	docs, emitted := 0, 0
	for name, r := range fleets {
		for _, p := range r.Tree.Paths() {
			if !strings.HasSuffix(p, ".yaml") {
				continue
			}
			for _, doc := range bytes.Split(bytes.TrimPrefix(r.Tree[p], []byte(tree.Header)), []byte("\n---\n")) {
				var m map[string]any
				if err := yaml.Unmarshal(doc, &m); err != nil {
					t.Fatalf("%s/%s: %v", name, p, err)
				}
				v, err := encode.YAMLValue(m)
				if err != nil {
					t.Fatal(err)
				}
				docs++
				got, ok := encode.EmitYAML(v)
				if !ok {
					continue
				}
				emitted++
				want, err := goyaml.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s/%s: the emitter differs from go-yaml:\n%s\nwant:\n%s", name, p, got, want)
				}
			}
		}
	}
	t.Logf("%d of %d documents written by the emitter", emitted, docs)
	if docs < 5000 || emitted*100 < docs*95 {
		t.Errorf("the emitter wrote %d of %d documents; want at least 95%% of at least 5000", emitted, docs)
	}
}

// FuzzEmitYAML builds a document from the input (keys and strings from an
// alphabet of everything go-yaml treats specially, numbers, nesting) and
// holds the emitter to go-yaml wherever it does not fall back.
func FuzzEmitYAML(f *testing.F) {
	for _, seed := range []string{"", "abc", "k:v 1.5 yes", "\x00\x01\x02\x03\x04\x05\x06\x07", "--- - a: b #c", "0x1f 1_000 2006-01-02 1:20"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &valueGen{data: data}
		v := g.mapping(0)
		got, ok := encode.EmitYAML(v)
		if !ok {
			return
		}
		want, err := goyaml.Marshal(v)
		if err != nil {
			t.Skip() // nothing to compare with
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("value %#v:\ngot:\n%s\nwant:\n%s", v, got, want)
		}
	})
}

type valueGen struct {
	data []byte
	i    int
}

func (g *valueGen) next() byte {
	if g.i >= len(g.data) {
		return 0
	}
	g.i++
	return g.data[g.i-1]
}

// Mostly the characters the emitter writes itself, so that its own path is
// what gets fuzzed, and sometimes everything go-yaml treats specially.
const (
	safeAlphabet = "abyYnNoOtTfFeExXzZ0123456789 :._/-+="
	fullAlphabet = safeAlphabet + "#,[]{}&*!|>'\"%@`?~<=\\\tü\n"
)

func (g *valueGen) str() string {
	alphabet := safeAlphabet
	if g.next()%4 == 0 {
		alphabet = fullAlphabet
	}
	n := int(g.next() % 12)
	var b strings.Builder
	for range n {
		b.WriteByte(alphabet[int(g.next())%len(alphabet)])
	}
	// Now and then a word go-yaml resolves, a number or a long line.
	switch g.next() % 16 {
	case 0:
		return []string{"yes", "No", "null", "~", "true", "Off", "y"}[int(g.next())%7]
	case 1:
		return fmt.Sprint(int(g.next()) * 1000)
	case 2:
		return strings.Repeat(b.String()+" word", 1+int(g.next()%20))
	}
	return b.String()
}

func (g *valueGen) value(depth int) any {
	switch k := g.next() % 10; {
	case depth < 4 && k == 0:
		return g.mapping(depth + 1)
	case depth < 4 && k == 1:
		n := int(g.next() % 4)
		s := make([]any, n)
		for i := range s {
			s[i] = g.value(depth + 1)
		}
		return s
	case k == 2:
		return int(int8(g.next())) * 1000
	case k == 3:
		return float64(int8(g.next())) / 8
	case k == 4:
		return g.next()%2 == 0
	case k == 5:
		return nil
	}
	return g.str()
}

func (g *valueGen) mapping(depth int) map[string]any {
	m := map[string]any{}
	for n := int(g.next() % 5); n > 0; n-- {
		m[g.str()] = g.value(depth)
	}
	return m
}
