package e2e

import (
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
		// A and C weigh 8; B and four broken ones catch up, then they alternate.
		{"0/2", "A C h j", ""},
		{"1/2", "B d e f g i k", ""},
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
