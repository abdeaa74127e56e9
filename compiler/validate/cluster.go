package validate

import (
	"github.com/gpufleet/gpufleet/compiler/spec"
	"regexp"
	"strconv"
	"strings"
)

// EKS's Kubernetes versions in standard or extended support when the
// catalog was last checked (November 2026). Move them with EKS.
const (
	minMinor = 30
	maxMinor = 36
)

var (
	// An AWS region: us-east-1, ap-southeast-2, us-gov-west-1, cn-north-1.
	regionRE = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)
	// What follows the region in a zone: a letter (us-east-1a), or a Local
	// or Wavelength Zone's suffix (us-west-2-lax-1a).
	zoneSuffixRE = regexp.MustCompile(`^([a-z]|(-[a-z0-9]+)+)$`)
	// An IAM role name.
	roleRE = regexp.MustCompile(`^[\w+=,.@-]{1,64}$`)
)

// cluster checks the cloud identifiers, which AWS would refuse only when
// eksctl, Terraform or Karpenter first use them.
func (c *checker) cluster() {
	cl := c.f.Cluster
	region := cl.Region
	if !regionRE.MatchString(region) {
		c.errorf(p("cluster", "region"), "region %q is not an AWS region name (like us-east-1)", region)
		region = ""
	}
	for i, z := range cl.Zones {
		if region != "" && (!strings.HasPrefix(z, region) || !zoneSuffixRE.MatchString(z[len(region):])) {
			c.errorf(p("cluster", "zones", strconv.Itoa(i)), "zone %q is not in region %s (want %sa, %sb, ...)", z, region, region, region)
		}
	}
	if minor, err := strconv.Atoi(strings.TrimPrefix(cl.Version, "1.")); err == nil && (minor < minMinor || minor > maxMinor) {
		c.errorf(p("cluster", "version"), "Kubernetes version %s is not one EKS supports (1.%d to 1.%d)", cl.Version, minMinor, maxMinor)
	}
	for _, name := range spec.Keys(cl.DaemonSets) {
		c.quantity(cl.DaemonSets[name].CPU, "cluster", "daemonSets", name, "cpu")
		c.quantity(cl.DaemonSets[name].Memory, "cluster", "daemonSets", name, "memory")
	}
	if c.usesKarpenter() {
		path := p("cluster", "name")
		if cl.Karpenter != nil && cl.Karpenter.Role != "" {
			path = p("cluster", "karpenter", "role")
		}
		if role := cl.KarpenterRole(); !roleRE.MatchString(role) {
			c.errorf(path, "Karpenter's node role %q is not an IAM role name (at most 64 of letters, digits and +=,.@_-)", role)
		}
	}
}

func (c *checker) usesKarpenter() bool {
	for _, pl := range c.f.Pools {
		if pl.HasNodePool() {
			return true
		}
	}
	return false
}
