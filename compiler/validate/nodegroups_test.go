package validate_test

import (
	"strings"
	"testing"
)

// TestNodeGroupNamesUnique: two pools may not make one EKS managed node
// group name (issue 36, High 4). eksctl refuses a file that lists a name
// twice, Terraform's map keeps one of them, and the checker and drift
// would credit both pools with one group's nodes.
func TestNodeGroupNamesUnique(t *testing.T) {
	const zoned = `pools: gen: {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}, zoneGroups: true}
`
	for _, tc := range []struct{ name, extra, want string }{
		{"zone group and pool", zoned + `pools: "gen-us-east-1a": {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}}`,
			`fleet.cue:8:8: pools.gen-us-east-1a: managed node group name "gen-us-east-1a" is made twice: by pool "gen" (its group for zone us-east-1a, zoneGroups) and by pool "gen-us-east-1a"`},
		{"zone group and both pool", zoned + `pools: "gen-us-east-1b": {instanceTypes: ["m7i.large"], size: {min: 1, max: 2}, provisioner: "both"}`,
			`managed node group name "gen-us-east-1b" is made twice: by pool "gen" (its group for zone us-east-1b, zoneGroups) and by pool "gen-us-east-1b"`},
		{"two zone-grouped pools", zoned + `pools: "gen-us-east-1a": {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}, zones: ["us-east-1a"]}`,
			`by pool "gen-us-east-1a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := check(t, tc.extra)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	// A Karpenter pool makes no managed node group, and its NodePool is
	// named after the pool, whose name is a key of pools: no collision.
	for _, ok := range []string{
		zoned + `pools: "gen-us-east-1a": {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}, provisioner: "karpenter"}`,
		zoned + `pools: "gen-us-east-1c": {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}}`,
		`pools: gen: {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}, zones: ["us-east-1a"], zoneGroups: false}
pools: "gen-us-east-1a": {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}}`,
	} {
		if err := check(t, ok); err != nil {
			t.Errorf("%s: rejected: %v", ok, err)
		}
	}
}
