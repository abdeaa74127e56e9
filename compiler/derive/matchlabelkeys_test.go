package derive

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

func TestMatchLabelKeys(t *testing.T) {
	for _, tc := range []struct {
		kind string
		want []string
	}{
		{keys.KindDeployment, []string{"pod-template-hash"}},
		{keys.KindStatefulSet, nil}, // its rolling update keeps old pods in the count
		{keys.KindJob, []string{"batch.kubernetes.io/controller-uid"}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			c := deriveClass("c", spec.Class{Kind: tc.kind, Priority: "p", Container: "main", Replicas: 2,
				Spread: &spec.Spread{Zones: spec.Required, Hosts: spec.Preferred, MaxSkew: 1}, AntiAffinity: spec.Required}, nil, aws.Cloud{})
			for _, tsc := range c.Template.Spec.TopologySpreadConstraints {
				if d := cmp.Diff(tc.want, tsc.MatchLabelKeys); d != "" {
					t.Errorf("spread on %s (-want +got):\n%s", tsc.TopologyKey, d)
				}
			}
			for _, term := range c.Template.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				if d := cmp.Diff(tc.want, term.MatchLabelKeys); d != "" {
					t.Errorf("anti-affinity (-want +got):\n%s", d)
				}
			}
		})
	}
}
