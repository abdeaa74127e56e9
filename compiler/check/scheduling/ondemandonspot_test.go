package scheduling

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
)

// A class the spec keeps on on-demand capacity must not land on spot.
func TestOnDemandOnSpot(t *testing.T) {
	web := checktest.Pod(corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=1")}})
	for _, tc := range []struct {
		name       string
		spot, only bool
		want       string
	}{
		{"on-demand class on spot", true, true, "class web demands on-demand capacity but can land on spot pool p"},
		{"any class on spot", true, false, ""},
		{"on-demand class on on-demand", false, true, ""},
	} {
		cl := onePool("p", tc.spot, checktest.Node(nil, nil, "cpu=8,pods=10"), "web", web)
		f := OnDemandOnSpot(cl, rows(cl), check.Intent{OnDemandOnly: map[string]bool{"web": tc.only}})
		switch {
		case tc.want == "" && len(f) > 0:
			t.Errorf("%s: unexpected %v", tc.name, f)
		case tc.want != "" && (len(f) != 1 || f[0].Check != IDOnDemandOnSpot || !strings.Contains(f[0].Message, tc.want)):
			t.Errorf("%s: findings %v, want one containing %q", tc.name, f, tc.want)
		}
	}
}
