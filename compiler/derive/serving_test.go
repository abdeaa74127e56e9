package derive

import (
	"testing"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

func TestMaxUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		class spec.Class
		want  int32 // 0: no budget
	}{
		{"job", spec.Class{Kind: keys.KindJob, Replicas: 4}, 0},
		{"one replica", spec.Class{Kind: keys.KindDeployment, Replicas: 1}, 0},
		{"two replicas", spec.Class{Kind: keys.KindDeployment, Replicas: 2}, 1},
		{"statefulset", spec.Class{Kind: keys.KindStatefulSet, Replicas: 3}, 1},
		{"zone skew 2", spec.Class{Kind: keys.KindDeployment, Replicas: 6, Spread: &spec.Spread{Zones: spec.Required, MaxSkew: 2}}, 2},
		{"host skew does not widen", spec.Class{Kind: keys.KindDeployment, Replicas: 6, Spread: &spec.Spread{Hosts: spec.Required, MaxSkew: 3}}, 1},
		{"never all replicas", spec.Class{Kind: keys.KindDeployment, Replicas: 3, Spread: &spec.Spread{Zones: spec.Preferred, MaxSkew: 5}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := maxUnavailable(tc.class)
			switch {
			case tc.want == 0 && got != nil:
				t.Errorf("budget of %d, want none", *got)
			case tc.want != 0 && (got == nil || *got != tc.want):
				t.Errorf("got %v, want %d", got, tc.want)
			}
		})
	}
}
