package nodes

import "testing"

func TestPoolOf(t *testing.T) {
	groups := []Group{{Pool: "a"}, {Pool: "b", Names: []string{"b-us-east-1a", "b-us-east-1b"}}}
	for _, tc := range []struct {
		labels   map[string]string
		pool, by string
	}{
		{map[string]string{"gpufleet.dev/pool": "a", "karpenter.sh/nodepool": "b"}, "a", "gpufleet.dev/pool"},
		{map[string]string{"gpufleet.dev/pool": "gone", "eks.amazonaws.com/nodegroup": "b"}, "b", "eks.amazonaws.com/nodegroup"},
		{map[string]string{"alpha.eksctl.io/nodegroup-name": "a"}, "a", "alpha.eksctl.io/nodegroup-name"},
		{map[string]string{"karpenter.sh/nodepool": "b"}, "b", "karpenter.sh/nodepool"},
		{map[string]string{"karpenter.sh/nodepool": "c"}, "", ""},
		// A pool with zoneGroups: its groups' names, not the pool's.
		{map[string]string{"eks.amazonaws.com/nodegroup": "b-us-east-1b"}, "b", "eks.amazonaws.com/nodegroup"},
		{map[string]string{"gpufleet.dev/pool": "b-us-east-1b"}, "", ""},
		{nil, "", ""},
	} {
		if pool, by := PoolOf(tc.labels, groups); pool != tc.pool || by != tc.by {
			t.Errorf("PoolOf(%v) = %q, %q; want %q, %q", tc.labels, pool, by, tc.pool, tc.by)
		}
	}
}
