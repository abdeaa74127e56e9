package nodes

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReservationsRoundTrip(t *testing.T) {
	rs := []Reservation{
		{Selector: "cr-0a1b", Block: true, InstanceType: "p5.48xlarge", Zone: "us-east-1a", Count: 2, Start: "2026-12-14T11:30:00Z", End: "2026-12-28T11:30:00Z", Price: "31.464"},
		{Selector: TagSelector(map[string]string{"team": "ml", "env": "prod"}), InstanceType: "g6e.12xlarge", Zone: "us-east-1b", Count: 4},
		{Selector: "cr-0c", InstanceType: "g6e.12xlarge", Zone: "us-east-1b", Count: 1, End: "2027-01-01T00:00:00Z"},
	}
	s := FormatReservations(rs)
	got, err := ParseReservations(s)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rs, got); diff != "" {
		t.Errorf("%q round trip (-want +got):\n%s", s, diff)
	}
	if rs[1].Selector != "tags:env=prod,team=ml" {
		t.Errorf("tag selector %q, want keys in order", rs[1].Selector)
	}
}

func TestParseReservationsRefuses(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"cr-0a odcr g6e.12xlarge us-east-1a", "want <selector>"},
		{"cr-0a odcr g6e.12xlarge us-east-1a 0", "not a positive number"},
		{"cr-0a spot g6e.12xlarge us-east-1a 2", "neither odcr nor capacity-block"},
		{"cr-0a odcr g6e.12xlarge us-east-1a 2 2026-12-14T11:30:00Z", "want <selector>"},
		{"cr-0a capacity-block p5.48xlarge us-east-1a 2 - 2026-12-28T11:30:00Z cheap", "not a number"},
	} {
		if _, err := ParseReservations(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.in, err, tc.want)
		}
	}
}
