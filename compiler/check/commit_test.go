package check

import "testing"

// 16 nominal GPUs against 2 nodes × 8.
func TestCommits(t *testing.T) {
	cl, in := quotaFleet()
	if c := Commits(cl, in); c[0].Resource != "nvidia.com/gpu" || c[0].Ratio != 1 {
		t.Errorf("overcommit %+v, want nvidia.com/gpu ratio 1", c[0])
	}
}
