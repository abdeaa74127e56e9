package fleetgen

import (
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// composed gives the composed differential Kueue's three units to follow
// from admission into placement: queued Deployments (admitted pod by
// pod) and StatefulSets (one pod group), gangs and queued workloads with
// hard zone spreads and hostname anti-affinity, and Jobs that run in
// waves. Pools already differ in zones (0 to 3) and size (1 to 12 nodes).
// It runs after queues, so that fleets without it stay as they were.
func (g *gen) composed(f *spec.Fleet) {
	queued, alone := true, false
	for _, name := range spec.Keys(f.Classes) {
		c := f.Classes[name]
		r := g.r.Float64()
		switch {
		case r < 0.2:
			c.Kind, c.Queue = keys.KindDeployment, &queued
			c.Replicas = int32(g.num("2", "3", "4", "6", "8"))
		case r < 0.35:
			c.Kind, c.Queue = keys.KindStatefulSet, &queued
			c.Replicas = int32(g.num("2", "3", "4", "6"))
		case r < 0.5:
			c.Kind, c.Queue = keys.KindJob, nil
			c.Replicas = int32(g.num("2", "4", "8", "16", "32"))
			if g.chance(0.4) {
				c.Queue = &alone // the Job controller alone
			}
		}
		if c.Kind != keys.KindJob {
			c.Gang, c.Checkpoint, c.BackoffLimit = nil, nil, nil
		} else if r >= 0.35 && r < 0.5 {
			c.Gang = nil // runs in waves
		}
		if c.Queued() && g.chance(0.6) {
			c.Spread, c.AntiAffinity = nil, ""
			if g.chance(0.6) {
				c.Spread = &spec.Spread{Zones: spec.Required, MaxSkew: int32(1 + g.r.IntN(2))}
				// minDomains above the pool's zones is what refuses pods
				// inside one pool; 1 never binds.
				if g.chance(0.7) {
					mz := int32(2 + g.r.IntN(2))
					c.Spread.MinZones = &mz
				}
			}
			if g.chance(0.7) {
				c.AntiAffinity = spec.Required
			}
		}
		f.Classes[name] = c
	}
}
