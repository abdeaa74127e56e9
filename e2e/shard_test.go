package e2e

import (
	"strings"
	"testing"
)

func TestShard(t *testing.T) {
	var fleets []fleetCase
	for _, n := range strings.Fields("a b c d e") {
		fleets = append(fleets, fleetCase{name: n})
	}
	names := func(fs []fleetCase) string {
		var s []string
		for _, f := range fs {
			s = append(s, f.name)
		}
		return strings.Join(s, " ")
	}
	for _, tc := range []struct{ spec, want, err string }{
		{"", "a b c d e", ""},
		{"0/2", "a c e", ""},
		{"1/2", "b d", ""},
		{"0/1", "a b c d e", ""},
		{"2/2", "", "want i/n"},
		{"1", "", "want i/n"},
		{"x/2", "", "want i/n"},
		{"5/6", "", "no fleets"},
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
