package karpenter

import (
	"testing"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

func TestExpireAfter(t *testing.T) {
	d := &derive.Fleet{Spec: &spec.Fleet{Classes: map[string]spec.Class{
		"train": {Kind: keys.KindJob},
		"serve": {Kind: keys.KindDeployment},
	}}}
	for _, tc := range []struct {
		name string
		pool spec.Pool
		want string
	}{
		{"serving pool: Karpenter's default, written out", spec.Pool{Capacity: spec.OnDemand}, "720h"},
		{"spot pool", spec.Pool{Capacity: spec.Spot}, "Never"},
		{"dedicated to Jobs", spec.Pool{Capacity: spec.OnDemand, DedicatedTo: []string{"train"}}, "Never"},
		{"dedicated to Jobs and a server", spec.Pool{Capacity: spec.OnDemand, DedicatedTo: []string{"train", "serve"}}, "720h"},
		{"its own", spec.Pool{Capacity: spec.Spot, ExpireAfter: "24h"}, "24h"},
		{"its own Never", spec.Pool{Capacity: spec.OnDemand, ExpireAfter: "Never"}, "Never"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := expireAfter(d, derive.Pool{Spec: tc.pool}); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
