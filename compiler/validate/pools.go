package validate

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/internal/suggest"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

func (c *checker) pools() {
	for _, i := range duplicates(c.f.Cluster.Zones) {
		c.errorf(p("cluster", "zones", strconv.Itoa(i)), "zone %q is listed twice", c.f.Cluster.Zones[i])
	}
	for _, name := range spec.Keys(c.f.Pools) {
		pool := c.f.Pools[name]
		for i, z := range pool.Zones {
			if !contains(c.f.Cluster.Zones, z) {
				c.errorf(p("pools", name, "zones", strconv.Itoa(i)), "zone %q is not one of the cluster's zones (%s)", z, quoted(c.f.Cluster.Zones))
			}
		}
		for _, i := range duplicates(pool.Zones) {
			c.errorf(p("pools", name, "zones", strconv.Itoa(i)), "zone %q is listed twice", pool.Zones[i])
		}
		c.poolInstances(name, pool)
		for i, cl := range pool.DedicatedTo {
			if _, ok := c.f.Classes[cl]; !ok {
				c.errorf(p("pools", name, "dedicatedTo", strconv.Itoa(i)), "pool is dedicated to class %q, which is not defined%s", cl, suggest.Hint(cl, spec.Keys(c.f.Classes)))
			}
		}
		c.labels(pool.Labels, "pools", name, "labels")
		for _, k := range spec.Keys(pool.Labels) {
			if keys.Reserved(k) {
				c.errorf(p("pools", name, "labels", k), "label key %q is reserved: gpufleet derives it", k)
			}
			if pool.HasNodeGroup() && kubeletRestricted(k) {
				c.errorf(p("pools", name, "labels", k), "label key %q is in a domain the kubelet restricts (kubernetes.io, k8s.io): a node group's nodes take their labels from the kubelet's --node-labels, which allows there only its own labels and the node.kubernetes.io and kubelet.kubernetes.io domains", k)
			}
		}
		for i, t := range pool.Taints {
			tp := p("pools", name, "taints", strconv.Itoa(i))
			for _, msg := range validation.IsQualifiedName(t.Key) {
				c.errorf(tp, "taint key %q is invalid: %s", t.Key, msg)
			}
			for _, msg := range validation.IsValidLabelValue(t.Value) {
				c.errorf(tp, "taint value %q is invalid: %s", t.Value, msg)
			}
			if keys.Reserved(t.Key) {
				c.errorf(tp, "taint key %q is reserved: gpufleet derives it", t.Key)
			}
			// cluster-autoscaler's node template holds one taint per key.
			for _, prev := range pool.Taints[:i] {
				if prev.Key == t.Key {
					c.errorf(tp, "taint key %q is listed twice: a scale-from-zero tag holds one taint per key", t.Key)
					break
				}
			}
		}
		c.zoneGroups(name, pool)
		c.karpenterPool(name, pool)
		c.gpuSharing(name, pool)
		c.topologyDomains(name, pool)
	}
	c.nodeGroupNames()
}

// nodeGroupNames refuses two pools that make one managed node group name,
// named as the provisioner names them (spec.Pool.NodeGroups): a pool "gen"
// with zoneGroups makes "gen-us-west-2a", as does a pool of that name.
// eksctl refuses a file listing a name twice, Terraform's map would keep
// one group, and the checker and drift would credit both pools with its
// nodes. A Karpenter NodePool is named after its pool, a key of pools,
// so NodePools cannot collide.
func (c *checker) nodeGroupNames() {
	type maker struct{ pool, zone string }
	made := map[string]maker{}
	for _, name := range spec.Keys(c.f.Pools) {
		pool := c.f.Pools[name]
		zones := pool.Zones
		if len(zones) == 0 {
			zones = c.f.Cluster.Zones
		}
		for _, ng := range pool.NodeGroups(name, zones) {
			zone := ""
			if ng.Name != name {
				zone = ng.Zones[0]
			}
			prev, ok := made[ng.Name]
			if !ok {
				made[ng.Name] = maker{name, zone}
				continue
			}
			path := p("pools", name)
			if zone != "" {
				path = p("pools", name, "zoneGroups")
			}
			c.errorf(path, "managed node group name %q is made twice: by %s and by %s; a cluster holds each node group name once: rename one of the pools",
				ng.Name, makerOf(prev.pool, prev.zone), makerOf(name, zone))
		}
	}
}

func makerOf(pool, zone string) string {
	if zone == "" {
		return "pool " + strconv.Quote(pool)
	}
	return "pool " + strconv.Quote(pool) + " (its group for zone " + zone + ", zoneGroups)"
}

// karpenterPool checks what a Karpenter NodePool cannot express: Karpenter
// keeps no minimum of nodes and has no desired size, and a "both" pool
// needs a managed baseline below its max. What Karpenter's cloud provider
// refuses is the cloud's to check (cloud.Cloud's Validate).
func (c *checker) karpenterPool(name string, pool spec.Pool) {
	if !pool.HasNodePool() {
		if pool.ExpireAfter != "" {
			c.errorf(p("pools", name, "expireAfter"), "expireAfter needs provisioner \"karpenter\" or \"both\": a managed node group's nodes do not expire")
		}
		return
	}
	if pool.Provisioner == spec.Karpenter && pool.Size.Min > 0 {
		c.errorf(p("pools", name, "size", "min"), "Karpenter keeps no minimum of nodes: set min to 0, or provisioner to \"both\" for a managed baseline")
	}
	if pool.Provisioner == spec.Karpenter && pool.Size.Desired != nil && *pool.Size.Desired > 0 {
		c.errorf(p("pools", name, "size", "desired"), "Karpenter has no desired size: drop it, or set provisioner to \"both\"")
	}
	if pool.Provisioner == spec.Both {
		switch {
		case pool.Baseline() < 1:
			c.errorf(p("pools", name, "size", "min"), "provisioner \"both\" holds min (or desired) nodes in the managed node group and lets Karpenter launch the rest up to max: set min to 1 or more, or provisioner to \"karpenter\" for a pool that scales from zero")
		case pool.Size.Max <= pool.Baseline():
			c.errorf(p("pools", name, "size", "max"), "provisioner \"both\" holds %d nodes (min or desired) in the managed node group and lets Karpenter launch the rest up to max %d, which leaves it none: raise max, or set provisioner to \"managed\"", pool.Baseline(), pool.Size.Max)
		}
	}
	c.expireAfter(name, pool)
}

// maxMPSReplicas is the most clients NVIDIA MPS serves per GPU.
const maxMPSReplicas = 48

// gpuSharing checks sharing and mig: both need GPUs, MIG only exists on
// some of them, and a MIG-partitioned GPU cannot also be time-sliced here
// (the device plugin would advertise slices, not replicas of nvidia.com/gpu).
func (c *checker) gpuSharing(name string, pool spec.Pool) {
	for _, k := range []string{keys.LabelDevicePluginConfig, keys.LabelMIGConfig, keys.LabelMPSCapable} {
		if _, ok := pool.Labels[k]; ok {
			c.errorf(p("pools", name, "labels", k), "label key %q is reserved: gpufleet derives it from sharing and mig", k)
		}
	}
	if pool.Sharing == nil && pool.MIG == "" {
		return
	}
	if pool.Sharing != nil && pool.MIG != "" {
		c.errorf(p("pools", name, "mig"), "mig and sharing are mutually exclusive: a pool either cuts its GPUs into MIG slices or shares whole GPUs")
	}
	if s := pool.Sharing; s != nil && s.Strategy == "mps" && s.Replicas > maxMPSReplicas {
		c.errorf(p("pools", name, "sharing", "replicas"), "MPS serves at most %d clients per GPU, got %d", maxMPSReplicas, s.Replicas)
	}
	for i, it := range pool.InstanceTypes {
		in, ok := c.cat[it]
		if !ok {
			continue // reported by poolInstances
		}
		ip := p("pools", name, "instanceTypes", strconv.Itoa(i))
		switch {
		case in.GPU == nil && pool.Sharing != nil:
			c.errorf(ip, "instance type %q has no GPU: sharing needs a GPU pool", it)
		case in.GPU == nil && pool.MIG != "":
			c.errorf(ip, "instance type %q has no GPU: mig needs a GPU pool", it)
		case pool.MIG == "":
		case !catalog.SupportsMIG(in.GPU.Product):
			c.errorf(p("pools", name, "mig"), "instance type %q has %s GPUs, which have no MIG (A100, H100 and H200 do)", it, in.GPU.Product)
		default:
			if _, ok := catalog.MIGLayout(in.GPU, pool.MIG); !ok {
				c.errorf(p("pools", name, "mig"), "unknown MIG layout %q for instance type %q (%s %d GB): known %s",
					pool.MIG, it, in.GPU.Product, in.GPU.MemoryGiB, quoted(catalog.MIGLayouts(in.GPU)))
			}
		}
	}
}

// poolInstances checks that every instance type is known and that a pool is
// homogeneous in its GPU product, because node labels are per node group.
func (c *checker) poolInstances(name string, pool spec.Pool) {
	product, first := "", ""
	for i, it := range pool.InstanceTypes {
		ip := p("pools", name, "instanceTypes", strconv.Itoa(i))
		in, ok := c.cat[it]
		if !ok {
			if hint := suggest.Hint(it, spec.Keys(c.cat)); hint != "" {
				c.errorf(ip, "unknown instance type %q%s (or define it in the fleet's top-level instanceTypes)", it, hint)
			} else {
				c.errorf(ip, "unknown instance type %q: define it in the fleet's top-level instanceTypes", it)
			}
			continue
		}
		got := ""
		if in.GPU != nil {
			got = in.GPU.Product
		}
		if first == "" {
			product, first = got, it
			continue
		}
		if got != product {
			c.errorf(ip, "instance type %q (%s) mixes with %q (%s): a pool's instance types must share one GPU product", it, orCPU(got), first, orCPU(product))
		}
	}
	for _, i := range duplicates(pool.InstanceTypes) {
		c.errorf(p("pools", name, "instanceTypes", strconv.Itoa(i)), "instance type %q is listed twice", pool.InstanceTypes[i])
	}
}

func orCPU(product string) string {
	if product == "" {
		return "no GPU"
	}
	return product
}

// zoneGroups checks what a group per zone needs: a managed node group only
// (Karpenter picks zones itself), several zones, and a node of max for each.
func (c *checker) zoneGroups(name string, pool spec.Pool) {
	if !pool.ZoneGroups {
		return
	}
	zones := pool.Zones
	if len(zones) == 0 {
		zones = c.f.Cluster.Zones
	}
	switch {
	case pool.Provisioner != "" && pool.Provisioner != spec.Managed:
		c.errorf(p("pools", name, "zoneGroups"), "zoneGroups splits a managed node group by zone; Karpenter launches in the zone a pod needs: set provisioner to \"managed\", or drop zoneGroups")
	case len(zones) < 2:
		c.errorf(p("pools", name, "zoneGroups"), "zoneGroups gives a pool a node group per zone, and this pool has one zone: drop it")
	case pool.Size.Max < int32(len(zones)):
		c.errorf(p("pools", name, "size", "max"), "zoneGroups splits max over %d zones, and max %d leaves a zone's group no node: raise max to %d or more", len(zones), pool.Size.Max, len(zones))
	}
}

// kubeletRestricted reports whether the kubelet refuses key in its
// --node-labels, as a managed node group's nodes get their labels: a key
// in kubernetes.io or k8s.io (or a subdomain) that is not one the kubelet
// sets itself. This is the rule eksctl v0.230.0 refuses a node group's
// labels by (pkg/apis/eksctl.io/v1alpha5/validation.go, validateLabels
// and isKubernetesLabel), whose exceptions are k8s.io/kubelet v0.34.1's
// IsKubeletLabel (pkg/apis/well_known_labels.go), as the kubelet's own
// flag validation is. Karpenter's NodePools refuse a wider set
// (compiler/cloud/aws's karpenterPool), with other exceptions.
func kubeletRestricted(key string) bool {
	domain, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	under := func(d string) bool { return domain == d || strings.HasSuffix(domain, "."+d) }
	if !under("kubernetes.io") && !under("k8s.io") {
		return false
	}
	return !kubeletLabels[key] && !under(corev1.LabelNamespaceSuffixKubelet) && !under(corev1.LabelNamespaceSuffixNode)
}

// kubeletLabels are the keys the kubelet sets on its own Node, which its
// --node-labels may hold (IsKubeletLabel's kubeletLabels).
var kubeletLabels = map[string]bool{
	corev1.LabelHostname:                true,
	corev1.LabelTopologyZone:            true,
	corev1.LabelTopologyRegion:          true,
	corev1.LabelFailureDomainBetaZone:   true,
	corev1.LabelFailureDomainBetaRegion: true,
	corev1.LabelInstanceType:            true,
	corev1.LabelInstanceTypeStable:      true,
	corev1.LabelOSStable:                true,
	corev1.LabelArchStable:              true,
	"beta.kubernetes.io/os":             true,
	"beta.kubernetes.io/arch":           true,
}
