package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestShard(t *testing.T) {
	// Three examples, then broken fleets, as TestEndToEnd lists them.
	var fleets []fleetCase
	for _, n := range strings.Fields("A B C d e f g h i j k") {
		fleets = append(fleets, fleetCase{name: n, broken: n == strings.ToLower(n)})
	}
	names := func(fs []fleetCase) string {
		var s []string
		for _, f := range fs {
			s = append(s, f.name)
		}
		return strings.Join(s, " ")
	}
	for _, tc := range []struct{ spec, want, err string }{
		{"", "A B C d e f g h i j k", ""},
		// The heaviest first: A, B, C weigh 5 (no measured weight), a broken
		// fleet 1. A and C go to shard 0, B to shard 1, which five broken
		// ones bring to 10; then they alternate.
		{"0/2", "A C i k", ""},
		{"1/2", "B d e f g h j", ""},
		{"0/3", "A d g j", ""},
		{"0/1", "A B C d e f g h i j k", ""},
		{"2/2", "", "want i/n"},
		{"1", "", "want i/n"},
		{"x/2", "", "want i/n"},
		{"11/12", "", "no fleets"},
	} {
		got, err := shard(fleets, tc.spec)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("shard(%q): error %v, want one with %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil || names(got) != tc.want {
			t.Errorf("shard(%q) = %q, %v; want %q", tc.spec, names(got), err, tc.want)
		}
	}
}

// With the measured weights, three shards of the fleets CI runs (the
// examples and every broken_*.txtar) end within one broken fleet of each
// other: research, the heaviest, goes alone first.
func TestShardBalance(t *testing.T) {
	fleets, err := exampleFleets("..")
	if err != nil {
		t.Fatal(err)
	}
	broken, err := brokenFleets("..", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fleets = append(fleets, broken...)
	var loads []int
	for i := 0; i < 3; i++ {
		got, err := shard(fleets, fmt.Sprintf("%d/3", i))
		if err != nil {
			t.Fatal(err)
		}
		w := 0
		for _, f := range got {
			w += weight(f)
		}
		loads = append(loads, w)
	}
	if slices.Max(loads)-slices.Min(loads) > 1 {
		t.Errorf("shard weights %v", loads)
	}
}

// The refusal check runs on exactly one shard of each split, the lightest.
func TestLightestShard(t *testing.T) {
	var fleets []fleetCase
	for _, name := range []string{"research", "platform", "llm-serving", "dra", "reserved"} {
		fleets = append(fleets, fleetCase{name: name})
	}
	for i := range 10 {
		fleets = append(fleets, fleetCase{name: fmt.Sprintf("broken_%d", i), broken: true})
	}
	if !lightestShard(fleets, "") {
		t.Error("without shards, the one run must check")
	}
	for n := 1; n <= 4; n++ {
		got := 0
		for i := range n {
			if lightestShard(fleets, fmt.Sprintf("%d/%d", i, n)) {
				got++
			}
		}
		if got != 1 {
			t.Errorf("%d shards: %d run the refusal check", n, got)
		}
	}
}
