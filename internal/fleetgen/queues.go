package fleetgen

import (
	"fmt"
	"strconv"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// queues turns most classes into queued Jobs and gives tenants Kueue's
// whole vocabulary: nested cohorts, weights, borrowing and lending limits
// on some resources and not others, and per-pool quotas.
func (g *gen) queues(f *spec.Fleet) {
	for _, name := range spec.Keys(f.Classes) {
		c := f.Classes[name]
		// Most classes should land somewhere, so that Kueue's quota
		// arithmetic, not the pod's affinity, decides.
		if c.GPU != nil && g.chance(0.6) {
			c.GPU.Products, c.GPU.MinMemoryGiB = nil, 0
			c.GPU.Count = min(c.GPU.Count, 4)
		}
		if g.chance(0.75) {
			c.Kind = keys.KindJob
			gang := int32(g.num("1", "1", "2", "4", "8", "16"))
			c.Gang = &gang
			c.Spread, c.AntiAffinity = nil, ""
		}
		f.Classes[name] = c
	}
	w := 1 + float64(g.r.IntN(3))
	f.Cohorts = map[string]spec.Cohort{"org": {}}
	for k := 0; k < 2; k++ {
		c := spec.Cohort{Parent: "org"}
		if g.chance(0.5) {
			c.Weight = &w
		}
		f.Cohorts[fmt.Sprintf("lab-%d", k)] = c
	}
	pools := spec.Keys(f.Pools)
	for _, name := range spec.Keys(f.Tenants) {
		t := f.Tenants[name]
		t.Borrow, t.Lend, t.Cohort = nil, nil, ""
		if g.chance(0.8) {
			t.Cohort = g.pick([]string{"org", "lab-0", "lab-1", "lab-1"})
			if g.chance(0.7) {
				t.Borrow = g.limits()
			}
			if g.chance(0.5) {
				t.Lend = g.limits()
			}
			if g.chance(0.3) {
				t.Weight = &w
			}
		}
		if g.chance(0.25) {
			t.PoolQuotas = map[string]spec.Quota{}
			for k := 0; k < 1+g.r.IntN(3); k++ {
				q := g.limits()
				t.PoolQuotas[g.pick(pools)] = *q
			}
		} else {
			gpu := int64(g.num("0", "8", "16", "32", "48", "64"))
			t.Quota = &spec.Quota{GPU: &gpu, CPU: spec.Quantity(strconv.Itoa(int(g.num("32", "200", "800", "1600")))), Memory: spec.Quantity(fmt.Sprintf("%dGi", g.num("256", "1024", "4096", "8192")))}
		}
		f.Tenants[name] = t
	}
}

// limits is a quota listing some resources and not others.
func (g *gen) limits() *spec.Quota {
	q := &spec.Quota{}
	if g.chance(0.8) {
		v := int64(g.num("0", "2", "4", "8", "16", "32"))
		q.GPU = &v
	}
	if g.chance(0.5) {
		q.CPU = spec.Quantity(strconv.Itoa(int(g.num("0", "8", "32", "100", "400"))))
	}
	if g.chance(0.5) {
		q.Memory = spec.Quantity(fmt.Sprintf("%dGi", g.num("0", "32", "128", "512", "2048")))
	}
	return q
}
