package cost

import "testing"

func TestNodesFor(t *testing.T) {
	for _, tc := range []struct {
		name          string
		pods, perNode int64
		zones         int
		spread        bool
		want          int64
	}{
		{"packed", 6, 2, 3, false, 3},
		{"packed, remainder", 7, 2, 3, false, 4},
		{"spread over three zones", 3, 2, 3, true, 3},
		{"spread, even", 6, 2, 3, true, 3},
		{"spread, uneven", 7, 2, 3, true, 4},
		{"spread over one zone packs", 3, 2, 1, true, 2},
		{"fewer pods than zones", 2, 4, 3, true, 2},
		{"one per node", 3, 1, 3, true, 3},
		{"no pod fits", 3, 0, 3, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NodesFor(tc.pods, tc.perNode, tc.zones, tc.spread); got != tc.want {
				t.Errorf("NodesFor(%d, %d, %d, %v) = %d, want %d", tc.pods, tc.perNode, tc.zones, tc.spread, got, tc.want)
			}
		})
	}
}
