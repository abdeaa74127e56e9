package encode_test

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/encode"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// TestFastMatchesOld holds Marshal to the old path (MarshalOld) and to
// go-yaml alone (MarshalGoYAML) on every file of every example fleet and of
// generated fleets of each kind, compiled whole, and writeJSON to
// json.Marshal on every object; it requires the tree emitter to write
// nearly every document itself.
func TestFastMatchesOld(t *testing.T) {
	specs, err := filepath.Glob("../../fleets/*")
	if err != nil || len(specs) == 0 {
		t.Fatalf("no example fleets: %v", err)
	}
	specs = append(specs,
		generatedSpec(t, 1, fleetgen.L, fleetgen.Options{Buildable: true}),
		generatedSpec(t, 7, fleetgen.M, fleetgen.Options{Tricky: true}),
		generatedSpec(t, 3, fleetgen.S, fleetgen.Options{Full: true}))
	docs, fast := 0, 0
	for _, spec := range specs {
		for _, objs := range compiledFiles(t, spec) {
			got, err := encode.Marshal(objs...)
			if err != nil {
				t.Fatal(err)
			}
			for name, ref := range map[string]func(...any) ([]byte, error){"the old path": encode.MarshalOld, "go-yaml": encode.MarshalGoYAML} {
				want, err := ref(objs...)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: Marshal differs from %s:\n%s\nwant:\n%s", spec, name, got, want)
				}
			}
			for _, obj := range objs {
				j, err := json.Marshal(obj)
				if err != nil {
					t.Fatal(err)
				}
				if w, err := encode.WriteJSON(obj); err != nil || !bytes.Equal(w, j) {
					t.Fatalf("%s: writeJSON differs from json.Marshal (%v):\n%s\nwant:\n%s", spec, err, w, j)
				}
				docs++
				if _, ok := encode.FastDoc(j); ok {
					fast++
				}
			}
		}
	}
	t.Logf("%d of %d documents written by the tree emitter", fast, docs)
	if docs < 5000 || fast*100 < docs*95 {
		t.Errorf("the tree emitter wrote %d of %d documents; want at least 95%% of at least 5000", fast, docs)
	}
}

// fastCases are documents' JSON with what pruning, key order, numbers and
// strings make tricky, and input the tree emitter must decline.
var fastCases = []string{
	`{}`, `[]`, `"s"`, `null`, `{"status":{"replicas":0}}`, `{"status":1,"a":{"status":{}}}`,
	`{"metadata":{"creationTimestamp":null},"spec":{"resources":{},"strategy":{"x":null}},"data":{"spec":{}}}`,
	`{"spec":{"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"a","resources":{}}]}}}}`,
	`{"items":[{"metadata":{}},{},null,{"spec":null}],"e":{},"s":[],"m":null,"spec":[]}`, `{"a":[[]],"n":null}`,
	`{"spec":{"a":1},"spec":{}}`, `{"spec":{},"spec":{"a":1}}`, `{"a":1,"a":2}`, `{"metadata":{},"metadata":{}}`,
	`{"n":[0,-0,1,-12,1.5,1e3,1E-3,-0.0,123456789012345678,1234567890123456789,9223372036854775807,9223372036854775808,18446744073709551616,1e400]}`,
	`{"a10":1,"a9":2,"b":3,"a":4,"B":5,"_":6,"-x":7,".":8}`, `{"b":1,"a":2,"B":3,"O_E":4,"OE":5,"a_b":6,"aB":7,"a-b":8,"a.b":9,"a/b":10,"a+b":11}`, `{"6a":1,"48":2,"67":3}`, `{"a0":1,"a00":2,"a01":3}`,
	`{"k":"yes","y":"no","x":"1.5","d":"2006-01-02","q":"100Gi","m":"500m","o":"0x1f","e":"1e3","s":"a b","c":"a:b","l":"a=b","ll":"a=1"}`, `{"u":"_x"}`,
	`{"t":"12:30"}`, `{"a":"b "}`, `{"a":"b  c"}`, `{"a":"b:"}`, `{"a":"b: c"}`, `{"a":"-b"}`, `{"a":".b"}`, `{"a":"=b"}`, `{"a":"1=b"}`,
	`{"long":"` + strings.Repeat("word ", 15) + `word"}`, `{"long":[{"k":"` + strings.Repeat("word ", 15) + `word"}]}`,
	`{"fits":"` + strings.Repeat("word ", 14) + `w"}`, `{"nospace":"` + strings.Repeat("w", 100) + `"}`,
	`{"` + strings.Repeat("k", 129) + `":1}`, `{"a b":1}`, `{"":1}`, `{"a":""}`, `{"a":[[1]]}`, `{"a":"\u003cb\u003e","b":"\/","c":"é"}`,
	`{"a":{"b":{"c":[{"d":[{"e":{}}]}]}}}`, ` { "a" : [ 1 , { "b" : true } ] , "c" : false } `,
	`{"a":1,}`, `{"a":01}`, `{"a":1}x`, `{"a"}`, `{"a":tru}`, `{"a":"b`, `{"a":[1 2]}`, "{\"a\":\"\x01\"}",
}

// The tree emitter writes what the old path writes wherever it does not
// decline, and declines where the old path fails.
func TestFastCases(t *testing.T) {
	written := 0
	for _, c := range fastCases {
		if sameAsOld(t, []byte(c)) {
			written++
		}
	}
	if written < 15 {
		t.Errorf("the tree emitter wrote only %d of %d cases", written, len(fastCases))
	}
}

func sameAsOld(t *testing.T, j []byte) bool {
	t.Helper()
	got, ok := encode.FastDoc(j)
	if !ok {
		return false
	}
	want, err := encode.OldDoc(j)
	switch {
	case err != nil:
		t.Errorf("%.200q: the tree emitter wrote it, the old path failed: %v", j, err)
	case !bytes.Equal(got, want):
		t.Errorf("%.200q: the tree emitter wrote:\n%s\nthe old path:\n%s", j, got, want)
	}
	return true
}

// FuzzFastYAML holds the tree emitter to the old path on the input as JSON
// and on the JSON of a value built from it (valueGen).
func FuzzFastYAML(f *testing.F) {
	for _, c := range fastCases {
		f.Add([]byte(c))
	}
	for _, seed := range []string{"abc", "k:v 1.5 yes", "\x00\x01\x02\x03\x04\x05\x06\x07", "\x0c\x00\x03\x00\x01\x0c\x00\x05"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsOld(t, data)
		g := &valueGen{data: data}
		j, err := json.Marshal(g.mapping(0))
		if err != nil {
			t.Skip()
		}
		sameAsOld(t, j)
	})
}

// writeJSON writes what json.Marshal writes, or fails where it fails.
func TestWriteJSON(t *testing.T) {
	cycle := map[string]any{}
	cycle["c"] = cycle
	var nilMap map[string]any
	for _, v := range []any{
		nil, true, "", "plain", "<&>", "q\"b\\", "\x00\x1f\x7f", "ü\u2028", "\xff", 0, -1.5, 1e21, 1e-7, uint8(3), nilMap, []any(nil), []any{},
		map[string]any{"b": map[string]any{}, "a": []any{1, "x", nil, map[string]any{"<": ">"}}, "A": 2, "": 3, "é": 4, "\x01": 5},
		map[string]any{"meta": metav1.ObjectMeta{Name: "n", Labels: map[string]string{"a": "b"}}, "q": resource.MustParse("1Gi"), "p": &metav1.Time{}},
		map[string]any{"nan": math.NaN()}, map[string]any{"inf": []any{math.Inf(1)}}, cycle,
	} {
		got, gerr := encode.WriteJSON(v)
		want, werr := json.Marshal(v)
		if (gerr != nil) != (werr != nil) || gerr == nil && !bytes.Equal(got, want) {
			t.Errorf("%#v: writeJSON %s (%v), json.Marshal %s (%v)", v, got, gerr, want, werr)
		}
	}
}

// FuzzWriteJSON holds writeJSON to json.Marshal on values built from the
// input (valueGen).
func FuzzWriteJSON(f *testing.F) {
	for _, seed := range []string{"abc", "k:v 1.5 yes", "\x00\x01\x02\x03\x04\x05\x06\x07", "\x0c\x00\x03\x00\x01\x0c\x00\x05"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v := (&valueGen{data: data}).mapping(0)
		got, gerr := encode.WriteJSON(v)
		want, werr := json.Marshal(v)
		if (gerr != nil) != (werr != nil) || gerr == nil && !bytes.Equal(got, want) {
			t.Fatalf("%#v: writeJSON %s (%v), json.Marshal %s (%v)", v, got, gerr, want, werr)
		}
	})
}
