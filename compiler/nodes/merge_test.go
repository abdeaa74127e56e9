package nodes

import (
	"strings"
	"testing"
)

// Merge joins one pool's groups: a "both" pool's two provisioners (maxes
// added) and a zoneGroups pool's group per zone (zones joined, maxes
// added); any other difference is refused.
func TestMerge(t *testing.T) {
	g := func(src string, zones []string, max int32, blind bool) Group {
		return Group{Pool: "p", Source: src, InstanceTypes: []string{"g6.xlarge"}, Zones: zones, MaxNodes: max,
			Labels: map[string]string{"gpufleet.dev/pool": "p"}, ZoneBlind: blind}
	}
	ab := []string{"a", "b"}
	for _, tc := range []struct {
		name    string
		groups  [][]Group
		zones   string
		max     int32
		blind   bool
		wantErr string
	}{
		{"both: managed baseline and Karpenter's share", [][]Group{{g("eksctl", ab, 1, true)}, {g("karpenter", ab, 2, false)}}, "a,b", 3, false, ""},
		{"a group per zone", [][]Group{{g("eksctl", []string{"a"}, 2, false), g("eksctl", []string{"b"}, 1, false)}}, "a,b", 3, false, ""},
		{"one group over two zones", [][]Group{{g("eksctl", ab, 3, true)}}, "a,b", 3, true, ""},
		{"two groups in one zone", [][]Group{{g("eksctl", []string{"a"}, 2, false), g("eksctl", []string{"a"}, 1, false)}}, "", 0, false, "two node groups in zone a"},
		{"zone groups that launch other nodes", [][]Group{{g("eksctl", []string{"a"}, 1, false), func() Group {
			x := g("eksctl", []string{"b"}, 1, false)
			x.InstanceTypes = []string{"g6.2xlarge"}
			return x
		}()}}, "", 0, false, "its groups per zone disagree: instance types"},
		{"provisioners over other zones", [][]Group{{g("eksctl", ab, 1, true)}, {g("karpenter", []string{"a"}, 2, false)}}, "", 0, false, "disagree: zones"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Merge(tc.groups...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != 1 || strings.Join(out[0].Zones, ",") != tc.zones || out[0].MaxNodes != tc.max || out[0].ZoneBlind != tc.blind {
				t.Fatalf("merged %+v, want zones %s, max %d, zone-blind %v", out, tc.zones, tc.max, tc.blind)
			}
		})
	}
}
