package disruption

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// A grace period longer than the spot notice is warned of where the class
// lands on spot, and only there (the notice is AWS's 120 s, which the
// cloud seam gives the checker).
func TestSpotGracePeriod(t *testing.T) {
	sec := func(s int64) *int64 { return &s }
	for _, tc := range []struct {
		name   string
		grace  *int64
		fits   []bool
		notice int64
		want   string
	}{
		{"a window past the notice on spot", sec(600), []bool{true, true}, 120,
			"class c asks for 600 s to checkpoint (checkpointGracePeriodSeconds), but lands on spot pool(s) spot, whose instances are reclaimed 120 s after the interruption notice: its pods are killed before the window ends; checkpoint within 120 s, or keep the class off spot"},
		{"within the notice", sec(110), []bool{true, true}, 120, ""},
		{"exactly the notice", sec(120), []bool{true, true}, 120, ""},
		{"only on-demand", sec(600), []bool{true, false}, 120, ""},
		{"no grace period set", nil, []bool{true, true}, 120, ""},
		{"a cloud without a notice", sec(600), []bool{true, true}, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{TerminationGracePeriodSeconds: tc.grace}}
			cl := &sched.Cluster{Pools: []sched.Pool{{Name: "od"}, {Name: "spot", Spot: true}}, Classes: []sched.Class{{Name: "c", Pod: pod}}}
			cells := make([]sched.Cell, 2)
			for i := range cells {
				cells[i] = sched.Cell{Class: "c", Pool: cl.Pools[i].Name, Fits: tc.fits[i]}
			}
			var got []string
			for _, f := range SpotGracePeriod(cl, []sched.Row{*sched.NewRow(cells)}, check.Intent{SpotNoticeSeconds: tc.notice}) {
				if f.Check != IDSpotGracePeriod || f.Severity != check.Warning {
					t.Errorf("finding %+v", f)
				}
				got = append(got, f.Message)
			}
			if strings.Join(got, "\n") != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}
