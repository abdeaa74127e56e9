package load

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// outcome is everything a loaded spec gives the stages after it.
type outcome struct {
	shards int
	fleet  *spec.Fleet
	err    string
	pos    map[string]string // path → position, for every entry and some fields in them
}

func loadIn(t *testing.T, paths []string, k int) outcome {
	t.Helper()
	src, err := evaluate(paths, k)
	if err == nil {
		err = src.Decode()
	}
	if err != nil {
		return outcome{err: err.Error()}
	}
	o := outcome{shards: len(src.shards), fleet: src.Fleet, pos: map[string]string{}}
	at := func(path ...string) {
		o.pos[fmt.Sprint(path)] = src.Pos(path...).String()
	}
	at("cluster", "version")
	at("priorities")
	for _, n := range spec.Keys(src.Fleet.Pools) {
		at("pools", n)
		at("pools", n, "instanceTypes", "0")
		at("pools", n, "efa") // often defaulted: its nearest enclosing field
	}
	for _, n := range spec.Keys(src.Fleet.Classes) {
		at("classes", n)
		at("classes", n, "priority")
		at("classes", n, "image")
	}
	for _, n := range spec.Keys(src.Fleet.Tenants) {
		at("tenants", n, "namespaces", "0")
	}
	at("classes", "no-such-class", "priority")
	return o
}

// specFiles writes files into a new directory and returns their paths.
func specFiles(t *testing.T, files map[string][]byte) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for _, name := range spec.Keys(files) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func generated(seed uint64, size fleetgen.Size, opts fleetgen.Options) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(fleetgen.JSON(fleetgen.Generate(seed, size, opts)), &m); err != nil {
		panic(err)
	}
	return m
}

func jsonOf(v any) []byte {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		panic(err)
	}
	return b
}

// broken sets a few entries of each split section, and the shared fields,
// to what the schema refuses.
func broken(m map[string]any) map[string]any {
	section := func(name string) map[string]any { return m[name].(map[string]any) }
	for i, n := range spec.Keys(section("classes"))[:7] {
		c := section("classes")[n].(map[string]any)
		switch i % 3 {
		case 0:
			c["replicas"] = 0
		case 1:
			c["kind"] = "CronJob"
		default:
			c["colour"] = "blue"
		}
	}
	for _, n := range spec.Keys(section("pools"))[:4] {
		section("pools")[n].(map[string]any)["capacity"] = "sometimes"
	}
	for _, n := range spec.Keys(section("tenants"))[:4] {
		delete(section("tenants")[n].(map[string]any), "namespaces")
	}
	m["cluster"].(map[string]any)["version"] = "2.0"
	return m
}

// Shards give what the whole spec gives: the same fleet, the same errors
// and the same positions, whatever the number of shards.
func TestShardsAgree(t *testing.T) {
	m := generated(3, fleetgen.M, fleetgen.Options{Buildable: true})
	classes := m["classes"].(map[string]any)
	// Two files: the second has half the classes, and one class again
	// with a field the first does not set, which CUE unifies.
	rest := map[string]any{}
	for i, n := range spec.Keys(classes) {
		if i%2 == 0 {
			rest[n] = classes[n]
			delete(classes, n)
		}
	}
	first := spec.Keys(classes)[0]
	rest[first] = map[string]any{"schedulerName": "custom-scheduler"}
	twoFiles := map[string][]byte{"a.json": jsonOf(m), "b.json": jsonOf(map[string]any{"classes": rest})}
	clash := map[string][]byte{"a.json": twoFiles["a.json"], "b.json": jsonOf(map[string]any{"classes": map[string]any{first: map[string]any{"replicas": -1}}})}

	// A missing field in one shard and a value out of range in another:
	// CUE drops the first when it has the second.
	incomplete := generated(4, fleetgen.M, fleetgen.Options{Tricky: true})
	delete(incomplete["tenants"].(map[string]any)["tenant-1"].(map[string]any), "namespaces")
	incomplete["classes"].(map[string]any)["class-0"].(map[string]any)["replicas"] = 0
	if owner("tenant-1", 2) == owner("class-0", 2) {
		t.Fatal("tenant-1 and class-0 share a shard: choose others")
	}

	queues, err := yaml.Marshal(generated(5, fleetgen.M, fleetgen.Options{Queues: true, Tricky: true}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		files map[string][]byte
		split bool // the shards split it (else it is evaluated whole)
	}{
		{"buildable", map[string][]byte{"fleet.json": jsonOf(generated(1, fleetgen.M, fleetgen.Options{Buildable: true}))}, true},
		{"full", map[string][]byte{"fleet.json": jsonOf(generated(2, fleetgen.S, fleetgen.Options{Full: true}))}, true},
		{"yaml", map[string][]byte{"fleet.yaml": queues}, true},
		{"broken", map[string][]byte{"fleet.json": jsonOf(broken(generated(4, fleetgen.M, fleetgen.Options{Tricky: true})))}, false},
		{"incomplete", map[string][]byte{"fleet.json": jsonOf(incomplete)}, false},
		{"two files", twoFiles, true},
		{"two files clash", clash, false},
		{"section not a struct", map[string][]byte{"fleet.yaml": []byte("cluster: {}\npools: [a, b]\n")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			paths := specFiles(t, tc.files)
			want := loadIn(t, paths, 1)
			if tc.split == (want.err != "") {
				t.Fatalf("whole: error %q, want an error: %v", want.err, !tc.split)
			}
			for k := 2; k <= 4; k++ {
				got := loadIn(t, paths, k)
				if tc.split && got.shards != k {
					t.Fatalf("k=%d: %d shards: the spec was not split", k, got.shards)
				}
				if got.err != want.err {
					t.Errorf("k=%d: error\n%s\nwant\n%s", k, got.err, want.err)
				}
				if !reflect.DeepEqual(got.fleet, want.fleet) {
					t.Errorf("k=%d: the fleets differ", k)
				}
				if !reflect.DeepEqual(got.pos, want.pos) {
					for p := range want.pos {
						if got.pos[p] != want.pos[p] {
							t.Errorf("k=%d: %s at %s, want %s", k, p, got.pos[p], want.pos[p])
							break
						}
					}
				}
			}
		})
	}
}
