package disruption

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// A Job class that cannot checkpoint is warned of where it lands on spot,
// and only there.
func TestSpotCheckpoint(t *testing.T) {
	pools := []sched.Pool{{Name: "od"}, {Name: "spot", Spot: true}}
	dnd := map[string]string{"karpenter.sh/do-not-disrupt": "true"}
	for _, tc := range []struct {
		name        string
		kind        string
		annotations map[string]string
		fits        []bool
		want        string
	}{
		{"Job without checkpoints on spot", "Job", dnd, []bool{true, true}, "class c cannot checkpoint (karpenter.sh/do-not-disrupt), but lands on spot pool(s) spot"},
		{"only on-demand", "Job", dnd, []bool{true, false}, ""},
		{"checkpoints", "Job", nil, []bool{true, true}, ""},
		{"a Deployment is not a Job", "Deployment", dnd, []bool{true, true}, ""},
		{"another value", "Job", map[string]string{"karpenter.sh/do-not-disrupt": "false"}, []bool{false, true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &sched.Class{Name: "c", Kind: tc.kind, Pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: tc.annotations}}}
			cells := make([]sched.Cell, len(pools))
			for i := range cells {
				cells[i].Fits = tc.fits[i]
			}
			f := SpotCheckpoint(c, sched.NewRow(cells), pools)
			switch {
			case tc.want == "" && len(f) > 0:
				t.Errorf("unexpected finding %+v", f)
			case tc.want != "" && (len(f) != 1 || !strings.Contains(f[0].Message, tc.want) || f[0].Severity != check.Warning || f[0].Check != IDSpotCheckpoint):
				t.Errorf("findings %+v, want one warning containing %q", f, tc.want)
			}
		})
	}
}
