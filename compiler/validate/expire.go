package validate

import (
	"regexp"
	"time"

	"github.com/gpufleet/gpufleet/compiler/spec"
)

// karpenterDuration is the NodePool CRD's pattern for expireAfter
// (sigs.k8s.io/karpenter v1.15.0): hours, minutes and seconds, or Never.
var karpenterDuration = regexp.MustCompile(`^(([0-9]+(s|m|h))+|Never)$`)

// expireAfter checks a Karpenter pool's node lifetime: what the CRD
// accepts, and not zero, which would replace every node as it launches.
func (c *checker) expireAfter(name string, pool spec.Pool) {
	e := pool.ExpireAfter
	if e == "" || e == "Never" {
		return
	}
	if !karpenterDuration.MatchString(e) {
		c.errorf(p("pools", name, "expireAfter"), "expireAfter %q is not a duration Karpenter accepts: hours, minutes and seconds such as \"720h\" or \"1h30m\", or \"Never\"", e)
		return
	}
	d, err := time.ParseDuration(e)
	if err != nil {
		c.errorf(p("pools", name, "expireAfter"), "expireAfter %q is out of range: %v", e, err)
		return
	}
	if d <= 0 {
		c.errorf(p("pools", name, "expireAfter"), "expireAfter %q would replace every node as soon as it launches: give a positive duration, or \"Never\"", e)
	}
}
