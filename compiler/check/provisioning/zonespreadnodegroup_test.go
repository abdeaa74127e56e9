package provisioning

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

func TestZoneSpreadNodeGroup(t *testing.T) {
	spread := func(key string, when corev1.UnsatisfiableConstraintAction) *corev1.Pod {
		return &corev1.Pod{Spec: corev1.PodSpec{TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: when}}}}
	}
	zone := spread("topology.kubernetes.io/zone", corev1.DoNotSchedule)
	for _, tc := range []struct {
		name  string
		pod   *corev1.Pod
		blind bool // the pool is one group over several zones
		fits  bool
		want  string
	}{
		{"required zone spread on a zone-blind group", zone, true, true, "class c requires spreading over zones (topology.kubernetes.io/zone, DoNotSchedule), but it lands on pool(s) p, each one managed node group over several zones"},
		{"a group per zone, or Karpenter", zone, false, true, ""},
		{"a pool it does not land on", zone, true, false, ""},
		{"preferred spread", spread("topology.kubernetes.io/zone", corev1.ScheduleAnyway), true, true, ""},
		{"host spread", spread("kubernetes.io/hostname", corev1.DoNotSchedule), true, true, ""},
		{"no spread", &corev1.Pod{}, true, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := ZoneSpreadNodeGroup(&sched.Class{Name: "c", Pod: tc.pod}, sched.NewRow([]sched.Cell{{Fits: tc.fits}}), []sched.Pool{{Name: "p", ZoneBlind: tc.blind}})
			switch {
			case tc.want == "" && len(f) > 0:
				t.Errorf("unexpected finding %+v", f)
			case tc.want != "" && (len(f) != 1 || !strings.Contains(f[0].Message, tc.want) || f[0].Severity != check.Warning):
				t.Errorf("findings %+v, want one warning containing %q", f, tc.want)
			}
		})
	}
}
