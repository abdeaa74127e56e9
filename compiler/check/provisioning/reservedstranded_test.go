package provisioning

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/nodes"
)

func TestReservedStranded(t *testing.T) {
	node := sched.Node{InstanceType: "p5.48xlarge", Zone: "a", Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"gpufleet.dev/gpu-count": "8"}}}}
	odcr := []nodes.Reservation{{Selector: "cr-0a", InstanceType: "p5.48xlarge", Zone: "a", Count: 3}}
	for _, tc := range []struct {
		name     string
		reserved []nodes.Reservation
		fits     bool
		want     string
	}{
		{"no class lands", odcr, false, "pool p holds 3 reserved instances (24 GPUs), paid for whether used or not, but no class lands on it"},
		{"a class lands", odcr, true, ""},
		{"not reserved", nil, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := &sched.Cluster{Pools: []sched.Pool{{Name: "p", Reserved: tc.reserved, Nodes: []sched.Node{node}}}}
			f := ReservedStranded(cl, []sched.Row{*sched.NewRow([]sched.Cell{{Pool: "p", Fits: tc.fits}})}, check.Intent{})
			switch {
			case tc.want == "" && len(f) > 0:
				t.Errorf("unexpected %+v", f)
			case tc.want != "" && (len(f) != 1 || !strings.Contains(f[0].Message, tc.want) || f[0].Severity != check.Warning):
				t.Errorf("findings %+v, want one warning containing %q", f, tc.want)
			}
		})
	}
}
