package validate

import (
	"strconv"

	"github.com/gpufleet/gpufleet/compiler/spec"
)

// minWeight is the least fair-sharing weight above 0 that Kueue v0.19.2's
// ClusterQueue and Cohort webhooks accept (pkg/webhooks/common.go
// validateFairSharing: "When not 0, weight must be > 10e-9"). The CRD's
// schema takes any quantity, so a smaller weight is written (as 1n) and
// then refused when applied: the ClusterQueue is never created.
const minWeight = 1e-9

// weights refuses fair-sharing weights Kueue's webhooks would refuse, at
// their position.
func (c *checker) weights() {
	check := func(w *float64, at []string) {
		if w != nil && *w > 0 && *w <= minWeight {
			c.errorf(at, "weight %s: Kueue's webhook refuses a fair-sharing weight above 0 and at most 1e-9 (\"When not 0, weight must be > 10e-9\"), so the object would never be created: use 0 or more than 1e-9", strconv.FormatFloat(*w, 'g', -1, 64))
		}
	}
	for _, name := range spec.Keys(c.f.Tenants) {
		check(c.f.Tenants[name].Weight, p("tenants", name, "weight"))
	}
	for _, name := range spec.Keys(c.f.Cohorts) {
		check(c.f.Cohorts[name].Weight, p("cohorts", name, "weight"))
	}
}
