package aws

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/eksctl"
)

// MinMinor and MaxMinor bound EKS's Kubernetes versions in standard or
// extended support when the catalog was last checked (November 2026).
// Move them with EKS.
const (
	MinMinor = 30
	MaxMinor = 36
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

// maxTagKey is AWS's limit on a tag key.
const maxTagKey = 128

// maxNodeGroupName is EKS's limit on a managed node group's name.
const maxNodeGroupName = 63

type validator struct {
	f      *spec.Fleet
	cat    catalog.Catalog
	errorf func(path []string, format string, args ...any)
}

func p(parts ...string) []string { return parts }

// Validate implements cloud.Cloud: the cloud identifiers and limits that
// AWS, eksctl, Terraform or Karpenter's AWS provider would refuse only
// when they first use them.
func (Cloud) Validate(f *spec.Fleet, cat catalog.Catalog, errorf func(path []string, format string, args ...any)) {
	v := validator{f: f, cat: cat, errorf: errorf}
	v.cluster()
	reservations := map[string]string{}
	for _, name := range spec.Keys(f.Pools) {
		pool := f.Pools[name]
		for i, t := range pool.Taints {
			v.tagKey(p("pools", name, "taints", strconv.Itoa(i)), eksctl.CATaintTagPrefix+t.Key)
		}
		for _, k := range spec.Keys(pool.Labels) {
			v.tagKey(p("pools", name, "labels", k), eksctl.CALabelTagPrefix+k)
		}
		v.efa(name, pool)
		v.topology(name, pool)
		v.zoneGroups(name, pool)
		v.karpenterPool(name, pool)
		v.gpuSharing(name, pool)
		v.reserved(name, pool, reservations)
	}
}

func (v validator) cluster() {
	cl := v.f.Cluster
	// eksctl and EKS need subnets in two zones or more for a cluster.
	if len(cl.Zones) < 2 {
		v.errorf(p("cluster", "zones"), "an EKS cluster needs at least two zones, got %d", len(cl.Zones))
	}
	region := cl.Region
	if !regionRE.MatchString(region) {
		v.errorf(p("cluster", "region"), "region %q is not an AWS region name (like us-east-1)", region)
		region = ""
	}
	for i, z := range cl.Zones {
		if region != "" && (!strings.HasPrefix(z, region) || !zoneSuffixRE.MatchString(z[len(region):])) {
			v.errorf(p("cluster", "zones", strconv.Itoa(i)), "zone %q is not in region %s (want %sa, %sb, ...)", z, region, region, region)
		}
	}
	if minor, err := strconv.Atoi(strings.TrimPrefix(cl.Version, "1.")); err == nil && (minor < MinMinor || minor > MaxMinor) {
		v.errorf(p("cluster", "version"), "Kubernetes version %s is not one EKS supports (1.%d to 1.%d)", cl.Version, MinMinor, MaxMinor)
	}
	if v.usesKarpenter() {
		path := p("cluster", "name")
		if cl.Karpenter != nil && cl.Karpenter.Role != "" {
			path = p("cluster", "karpenter", "role")
		}
		if role := KarpenterRole(cl); !roleRE.MatchString(role) {
			v.errorf(path, "Karpenter's node role %q is not an IAM role name (at most 64 of letters, digits and +=,.@_-)", role)
		}
	}
}

func (v validator) usesKarpenter() bool {
	for _, pl := range v.f.Pools {
		if pl.HasNodePool() {
			return true
		}
	}
	return false
}

// tagKey checks a scale-from-zero tag key against AWS's 128-character limit,
// which eksctl and Terraform would otherwise hit only at apply time.
func (v validator) tagKey(path []string, key string) {
	if len(key) > maxTagKey {
		v.errorf(path, "key is too long for its scale-from-zero tag %q: AWS allows %d characters, got %d", key, maxTagKey, len(key))
	}
}

// topology checks a pool with Kueue TAS: the AWS cloud controller manager
// labels only the types EC2 topology describes, and Kueue's TAS leaves a
// node without every level's label out of the flavor
// (pkg/util/tas/node.go, NodeMatchesFlavor), so a pool of other types
// would admit no topology-aware workload.
func (v validator) topology(name string, pool spec.Pool) {
	if !pool.Topology {
		return
	}
	for i, it := range pool.InstanceTypes {
		if in, ok := v.cat[it]; ok && in.NetworkLayers == 0 {
			v.errorf(p("pools", name, "instanceTypes", strconv.Itoa(i)), "instance type %q gets no topology.k8s.aws/network-node-layer labels, so Kueue's topology-aware scheduling sees none of its nodes: topology needs a type EC2 topology describes (g6e, p4d, p4de, p5.48xlarge, p5e, p5en, p6-b200), or networkLayers on a type of instanceTypes", it)
		}
	}
}

// efa checks an EFA pool: EKS attaches EFA interfaces only on capable
// types, and EFA traffic does not cross zones, so eksctl requires one AZ.
func (v validator) efa(name string, pool spec.Pool) {
	if !pool.EFA {
		return
	}
	for i, it := range pool.InstanceTypes {
		if in, ok := v.cat[it]; ok && in.EFA == 0 {
			v.errorf(p("pools", name, "instanceTypes", strconv.Itoa(i)), "instance type %q has no EFA: efa needs p4d, p4de, p5, p5e, p5en, or an 8xlarge or larger g4dn, g5, g6 or g6e", it)
		}
	}
	switch len(pool.Zones) {
	case 0:
		v.errorf(p("pools", name, "efa"), "efa needs the pool in a single zone: set zones to one of the cluster's zones")
	case 1:
	default:
		v.errorf(p("pools", name, "zones"), "efa needs the pool in a single zone, got %d", len(pool.Zones))
	}
}

// zoneGroups checks that the group per zone of a pool gets a name EKS
// accepts: the names spec.Pool.NodeGroups gives, as the node-group files
// are written with them.
func (v validator) zoneGroups(name string, pool spec.Pool) {
	if !pool.ZoneGroups {
		return
	}
	zones := pool.Zones
	if len(zones) == 0 {
		zones = v.f.Cluster.Zones
	}
	for _, g := range pool.NodeGroups(name, zones) {
		if n := len(g.Name); n > maxNodeGroupName {
			v.errorf(p("pools", name, "zoneGroups"), "node group name %s is %d characters; EKS allows %d: shorten the pool's name", g.Name, n, maxNodeGroupName)
			return
		}
	}
}

// karpenterPool checks what Karpenter's AWS provider would reject or
// ignore: it attaches EFA only to pods that request vpc.amazonaws.com/efa
// (no class does yet), and refuses node labels in the kubelet's and its
// own domains (its CRD rules and RestrictedLabelDomains).
func (v validator) karpenterPool(name string, pool spec.Pool) {
	if !pool.HasNodePool() {
		return
	}
	if pool.EFA {
		v.errorf(p("pools", name, "efa"), "efa needs provisioner \"managed\": Karpenter attaches EFA only to pods that request vpc.amazonaws.com/efa")
	}
	for _, k := range spec.Keys(pool.Labels) {
		if karpenterRestricted(k) {
			v.errorf(p("pools", name, "labels", k), "label key %q is in a domain Karpenter restricts (kubernetes.io, k8s.io, karpenter.sh, %s)", k, karpenterDomain)
		}
	}
}

// karpenterRestricted mirrors Karpenter's restricted label domains and their
// exceptions, the AWS provider's domain included.
func karpenterRestricted(key string) bool {
	domain, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	under := func(d string) bool { return domain == d || strings.HasSuffix(domain, "."+d) }
	for _, d := range []string{"node.kubernetes.io", "node-restriction.kubernetes.io", "kops.k8s.io"} {
		if under(d) {
			return false
		}
	}
	return under("kubernetes.io") || under("k8s.io") || under("karpenter.sh") || under(karpenterDomain)
}

// gpuSharing checks what AWS's node images and Karpenter's AWS provider
// allow of sharing and mig.
func (v validator) gpuSharing(name string, pool spec.Pool) {
	if pool.Sharing == nil && pool.MIG == "" {
		return
	}
	// Bottlerocket's NVIDIA variants run the device plugin on the host and
	// configure sharing and MIG through their own settings
	// (settings.kubelet-device-plugins.nvidia), which gpufleet does not
	// write: neither the plugin's ConfigMap nor the MIG manager's label
	// would take effect.
	if pool.AMIFamily == eksctl.Bottlerocket {
		field := "sharing"
		if pool.MIG != "" {
			field = "mig"
		}
		v.errorf(p("pools", name, field), "%s needs amiFamily \"AmazonLinux2023\": Bottlerocket runs the NVIDIA device plugin on the host, configured by its own settings, which gpufleet does not write", field)
	}
	// Karpenter's AWS provider knows no MIG capacity: it would launch
	// nothing for a pod requesting nvidia.com/mig-* slices, and a "both"
	// pool's Karpenter share would stay empty.
	if pool.MIG != "" && pool.HasNodePool() {
		v.errorf(p("pools", name, "mig"), "mig needs provisioner \"managed\": Karpenter does not know a MIG node's slices, so it launches no node for a pod that requests them")
	}
}
