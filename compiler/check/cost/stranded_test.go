package cost

import "testing"

// The stranded rule: the most of a node's units the classes' pods fill
// together, each class at most Most pods.
func TestPack(t *testing.T) {
	for _, tc := range []struct {
		name     string
		capacity int64
		items    []PackItem
		want     int64 // usable; stranded is capacity - want
	}{
		{"one class of 3 on 8 strands 8 mod 3", 8, []PackItem{{3, 8}}, 6},
		{"a divisor strands none", 8, []PackItem{{4, 8}}, 8},
		{"one GPU each strands none", 8, []PackItem{{1, 100}}, 8},
		{"3 and 5 fill 8", 8, []PackItem{{3, 8}, {5, 8}}, 8},
		{"3 and 2 fill 8", 8, []PackItem{{3, 8}, {2, 8}}, 8},
		{"3 and 6 leave 2", 8, []PackItem{{3, 8}, {6, 8}}, 6},
		{"CPU fits one pod of 1", 8, []PackItem{{1, 1}}, 1},
		{"CPU fits two pods of 3", 8, []PackItem{{3, 2}, {5, 0}}, 6},
		{"bounds of one size add up", 8, []PackItem{{2, 1}, {2, 2}}, 6},
		{"bounds of one size, past the node", 8, []PackItem{{2, 3}, {2, 3}}, 8},
		{"bigger than the node", 8, []PackItem{{16, 1}}, 0},
		{"no class strands all", 8, nil, 0},
		{"no pod fits", 8, []PackItem{{1, 0}}, 0},
		{"MIG slices", 56, []PackItem{{1, 47}}, 47},
		{"MIG slices of two sizes", 56, []PackItem{{3, 100}, {7, 100}}, 56},
		{"zero capacity", 0, []PackItem{{1, 1}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Pack(tc.capacity, tc.items); got != tc.want {
				t.Errorf("Pack(%d, %v) = %d, want %d", tc.capacity, tc.items, got, tc.want)
			}
		})
	}
}

// Pack against brute force, over small nodes and classes.
func TestPackBruteForce(t *testing.T) {
	for capacity := int64(0); capacity <= 12; capacity++ {
		for a := int64(1); a <= 9; a++ {
			for b := int64(1); b <= 9; b++ {
				for most := int64(0); most <= 3; most++ {
					items := []PackItem{{a, most}, {b, 2}}
					var best int64
					for i := int64(0); i <= most; i++ {
						for j := int64(0); j <= 2; j++ {
							if v := i*a + j*b; v <= capacity {
								best = max(best, v)
							}
						}
					}
					if got := Pack(capacity, items); got != best {
						t.Fatalf("Pack(%d, %v) = %d, want %d", capacity, items, got, best)
					}
				}
			}
		}
	}
}
