package validate

import (
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gpufleet/gpufleet/compiler/spec"
)

// rollout refuses what the API server refuses of a Deployment's rolling
// update (k8s.io/kubernetes pkg/apis/apps/validation
// ValidateRollingUpdateDeployment), at the spec's position rather than
// when the tree is applied: maxUnavailable above 100%, and both bounds 0,
// which would let the rollout take no step.
func (c *checker) rollout(class string, r spec.Rollout) {
	at := func(f string) []string { return p("classes", class, "rollout", f) }
	if r.MaxUnavailable != nil && r.MaxUnavailable.Type == intstr.String {
		if v, err := intstr.GetScaledValueFromIntOrPercent(r.MaxUnavailable, 100, false); err == nil && v > 100 {
			c.errorf(at("maxUnavailable"), "maxUnavailable %s: must not be greater than 100%%", r.MaxUnavailable.StrVal)
		}
	}
	if zero(r.MaxSurge) && zero(r.MaxUnavailable) {
		c.errorf(p("classes", class, "rollout"), "maxSurge and maxUnavailable are both 0: the rollout could take no step (the API server refuses it: may not be 0 when maxSurge is 0)")
	}
}

// zero reports whether a bound the spec sets is 0 pods or 0%.
func zero(v *intstr.IntOrString) bool {
	if v == nil {
		return false
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, 100, false)
	return err == nil && n == 0
}
