package load

import (
	"encoding/json"
	"maps"
	"reflect"
	"testing"

	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// checkSplit holds splitJSON's texts to the whole, by encoding/json: same
// length and line breaks; each valid if the whole is; between them, every
// entry of a split section exactly once, in its owner, and every other
// field in each. It reports whether the whole is valid JSON.
func checkSplit(t *testing.T, data []byte, k int, parts [][]byte) bool {
	t.Helper()
	if len(parts) != k {
		t.Fatalf("%d texts for %d shards", len(parts), k)
	}
	for i, p := range parts {
		if len(p) != len(data) {
			t.Fatalf("shard %d: %d bytes, want %d", i, len(p), len(data))
		}
		for j := range p {
			if (p[j] == '\n') != (data[j] == '\n') {
				t.Fatalf("shard %d: a line break moved at byte %d", i, j)
			}
		}
	}
	var whole map[string]json.RawMessage
	if json.Unmarshal(data, &whole) != nil {
		for _, p := range parts {
			if !json.Valid(p) {
				return false
			}
		}
		t.Fatalf("every shard's text is valid JSON, but the whole is not:\n%s", data)
	}
	union := map[string]map[string]json.RawMessage{}
	for i, p := range parts {
		var got map[string]json.RawMessage
		if err := json.Unmarshal(p, &got); err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, p)
		}
		if len(got) != len(whole) {
			t.Fatalf("shard %d has %d fields, the whole %d", i, len(got), len(whole))
		}
		for name, v := range whole {
			if !shardedSections[name] || !isObject(v) {
				if !jsonEqual(got[name], v) {
					t.Fatalf("shard %d: %s is %s, want %s", i, name, got[name], v)
				}
				continue
			}
			var entries map[string]json.RawMessage
			if err := json.Unmarshal(got[name], &entries); err != nil {
				t.Fatalf("shard %d: %s: %v", i, name, err)
			}
			for e := range entries {
				if owner(e, k) != i {
					t.Fatalf("shard %d holds %s.%s, which shard %d owns", i, name, e, owner(e, k))
				}
			}
			if union[name] == nil {
				union[name] = map[string]json.RawMessage{}
			}
			maps.Copy(union[name], entries)
		}
	}
	for name, entries := range union {
		var want map[string]json.RawMessage
		if err := json.Unmarshal(whole[name], &want); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(entries) != len(want) {
			t.Fatalf("%s: the shards hold %d entries, the whole %d", name, len(entries), len(want))
		}
		for e, v := range want {
			if !jsonEqual(entries[e], v) {
				t.Fatalf("%s.%s: %s, want %s", name, e, entries[e], v)
			}
		}
	}
	return true
}

func isObject(v json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(v, &m) == nil && m != nil
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func TestSplitJSON(t *testing.T) {
	compact, err := json.Marshal(generated(1, fleetgen.M, fleetgen.Options{Buildable: true}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		data  string
		split bool
	}{
		{"generated", string(fleetgen.JSON(fleetgen.Generate(2, fleetgen.M, fleetgen.Options{Tricky: true}))), true},
		{"compact", string(compact), true},
		{"empty sections", `{"pools": {}, "classes": {}, "tenants":{ }, "cluster": {"a": [1, {"b": "}"}]}}`, true},
		{"one entry", "{\"classes\": {\"a\": {\"x\": [1,2]}}}\n", true},
		{"a key again", `{"classes": {"a": {"x": 1}, "b": 2, "a": {"y": 2}}, "classes": {"c": 3}}`, true},
		{"section not an object", `{"pools": [1, 2], "classes": {"a": 1}}`, true},
		{"escaped key", `{"classes": {"\u0061": 1, "b": 2}}`, false},
		{"not an object", `[{"classes": {}}]`, false},
		{"two commas", `{"classes": {"a": 1,, "b": 2}}`, false},
		{"trailing data", `{"classes": {"a": 1}} {}`, false},
		{"unterminated", `{"classes": {"a": "1}}`, false},
		{"deep", `{"classes": {"a": ` + nested(maxSplitDepth+5) + `}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k := 2; k <= 4; k++ {
				parts := splitJSON([]byte(tc.data), k)
				if (parts != nil) != tc.split {
					t.Fatalf("k=%d: split %v, want %v", k, parts != nil, tc.split)
				}
				if parts != nil && !checkSplit(t, []byte(tc.data), k, parts) {
					t.Fatalf("k=%d: the whole is not valid JSON", k)
				}
			}
		})
	}
}

func nested(depth int) string {
	s := "1"
	for range depth {
		s = "[" + s + "]"
	}
	return s
}

// FuzzSplitJSON holds splitJSON to encoding/json on arbitrary text: a
// split keeps every position, gives each shard valid JSON when the whole
// is, loses no entry and moves none to a shard that does not own it; and
// when the whole is not valid JSON, some shard's text is not either, so
// the error is found and the spec evaluated whole.
func FuzzSplitJSON(f *testing.F) {
	f.Add([]byte(`{"cluster": {"v": "1"}, "pools": {"a": {"x": [1]}, "b": 2}, "classes": {"c": "}"}}`), uint8(2))
	f.Add([]byte(`{"classes": {"a": 1, "b": 2, "c": 3}}`), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		n := 2 + int(k%3)
		if parts := splitJSON(data, n); parts != nil {
			checkSplit(t, data, n, parts)
		}
	})
}
