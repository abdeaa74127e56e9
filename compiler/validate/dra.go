package validate

import (
	"strconv"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
)

// minDRAMinor is the first Kubernetes minor with resource.k8s.io/v1, where
// Dynamic Resource Allocation is GA and on by default.
const minDRAMinor = 34

// minBridgeMinor is the first Kubernetes minor where DRAExtendedResource
// is on by default (beta): before it the API server drops a DeviceClass's
// extendedResourceName and kube-scheduler maps no extended resource to
// DRA devices.
const minBridgeMinor = 36

// maxClaimDevices is the most devices one claim allocates
// (k8s.io/api/resource/v1 AllocationResultsMaxSize).
const maxClaimDevices = resourcev1.AllocationResultsMaxSize

// dra checks pools and classes that use Dynamic Resource Allocation: the
// cluster must serve it, and what gpufleet builds on DRA pools is whole
// GPUs and static MIG slices on nodes that managed node groups or
// Karpenter launch (whether Karpenter launches for claims is the
// KarpenterDRA check's). Sharing is per-claim opaque configuration behind
// the driver's alpha gates, a "both" pool would mix the two, and
// Bottlerocket's NVIDIA variants run the device plugin on the host: none of
// those is built yet.
func (c *checker) dra() {
	f := c.f
	if f.Cluster.GPUAPI == spec.GPUAPIDRA && !c.draVersion() {
		c.errorf(p("cluster", "gpuAPI"), "gpuAPI \"dra\" needs Kubernetes 1.%d or later (resource.k8s.io/v1), not %s", minDRAMinor, f.Cluster.Version)
	}
	for _, name := range spec.Keys(f.Pools) {
		pool := f.Pools[name]
		c.bridge(name, pool)
		if f.PoolGPUAPI(pool) != spec.GPUAPIDRA {
			continue
		}
		at := p("pools", name, "gpuAPI")
		if pool.GPUAPI == "" {
			at = p("cluster", "gpuAPI")
		}
		if pool.GPUAPI != "" && !c.draVersion() {
			c.errorf(at, "gpuAPI \"dra\" needs Kubernetes 1.%d or later (resource.k8s.io/v1), not %s", minDRAMinor, f.Cluster.Version)
		}
		if !c.poolHasGPU(pool) {
			if pool.GPUAPI != "" {
				c.errorf(at, "pool %q has no GPU: gpuAPI \"dra\" is for GPU pools", name)
			}
			continue
		}
		if pool.Sharing != nil {
			c.errorf(p("pools", name, "sharing"), "sharing is not built for gpuAPI \"dra\" pools: the NVIDIA DRA driver shares a GPU through each claim's opaque config, behind its alpha gates")
		}
		if pool.Provisioner == spec.Both {
			c.errorf(p("pools", name, "provisioner"), "provisioner %q is not built for gpuAPI \"dra\" pools yet: use \"managed\" or \"karpenter\"", pool.Provisioner)
		}
		if c.cloud.HostDevicePlugin(pool) {
			c.errorf(p("pools", name, "amiFamily"), "amiFamily %q runs the NVIDIA device plugin on the host, beside which the DRA driver must not publish the same GPUs: gpuAPI \"dra\" pools need an image that leaves the device plugin to a DaemonSet", pool.AMIFamily)
		}
		for i, it := range pool.InstanceTypes {
			in, ok := c.cat[it]
			if !ok || in.GPU == nil {
				continue
			}
			if _, ok := c.cloud.DRADevices(in); !ok {
				c.errorf(p("pools", name, "instanceTypes", strconv.Itoa(i)), "instance type %q: the devices the NVIDIA DRA driver publishes for its %s %d GB GPUs are not known, so no claim can be proved to land", it, in.GPU.Product, in.GPU.MemoryGiB)
			}
		}
	}
	for _, name := range spec.Keys(f.Classes) {
		cl := f.Classes[name]
		if f.ClassGPUAPI(cl) != spec.GPUAPIDRA {
			continue
		}
		at := p("classes", name, "gpu", "api")
		if cl.GPU.API == "" {
			at = p("cluster", "gpuAPI")
		}
		switch {
		case cl.GPU.Count > maxClaimDevices:
			c.errorf(p("classes", name, "gpu", "count"), "a claim allocates at most %d devices (resource.k8s.io's AllocationResultsMaxSize), so kube-scheduler's DynamicResources plugin fails every node for %d: \"number of requested devices %d exceeds the claim limit of %d\"", maxClaimDevices, cl.GPU.Count, cl.GPU.Count, maxClaimDevices)
		case cl.GPU.Shared:
			c.errorf(p("classes", name, "gpu", "shared"), "shared is not built for gpu.api \"dra\": a claim allocates whole GPUs")
		case !c.anyDRAPool():
			c.errorf(at, "class %q asks for GPUs through DRA, but no pool sets gpuAPI \"dra\", so no node publishes a device its claim could allocate", name)
		}
	}
}

func (c *checker) draVersion() bool { return c.minorAtLeast(minDRAMinor) }

func (c *checker) minorAtLeast(least int) bool {
	minor, err := strconv.Atoi(strings.TrimPrefix(c.f.Cluster.Version, "1."))
	return err != nil || minor >= least // a malformed version is the schema's to refuse
}

// bridge checks a pool's extendedResourceBridge: the pool must be on DRA
// (a device-plugin pool advertises nvidia.com/gpu itself), the cluster
// must have DRAExtendedResource on, and the pool's GPUs must be whole:
// the driver chart's gpu.nvidia.com DeviceClass, which names
// nvidia.com/gpu, selects devices of type "gpu", and a MIG-cut GPU
// publishes only its MIG devices, so kube-scheduler would allocate none.
func (c *checker) bridge(name string, pool spec.Pool) {
	if !pool.ExtendedResourceBridge {
		return
	}
	at := p("pools", name, "extendedResourceBridge")
	switch {
	case c.f.PoolGPUAPI(pool) != spec.GPUAPIDRA:
		c.errorf(at, "extendedResourceBridge is for gpuAPI \"dra\" pools: pool %q is on the device plugin, which advertises nvidia.com/gpu itself", name)
	case !c.minorAtLeast(minBridgeMinor):
		c.errorf(at, "extendedResourceBridge needs Kubernetes 1.%d or later, not %s: DRAExtendedResource is off by default before 1.%d, so the API server drops the DeviceClass's extendedResourceName and kube-scheduler gives pods asking for nvidia.com/gpu no DRA device", minBridgeMinor, c.f.Cluster.Version, minBridgeMinor)
	case pool.MIG != "":
		c.errorf(at, "extendedResourceBridge is for whole GPUs: nvidia.com/gpu maps to the driver chart's DeviceClass %s, which selects devices of type \"gpu\", and the MIG-cut GPUs of pool %q publish only MIG devices, so kube-scheduler would allocate none", dradriver.DeviceClassGPU, name)
	case !c.poolHasGPU(pool):
		c.errorf(at, "pool %q has no GPU: extendedResourceBridge is for GPU pools", name)
	case pool.Provisioner == spec.Karpenter || pool.Provisioner == spec.Both:
		c.errorf(at, "extendedResourceBridge is not built for Karpenter pools: Karpenter launches a NodeClaim for the pods' nvidia.com/gpu (its instance types carry the GPUs as nvidia.com/gpu), and on a node whose GPUs the DRA driver publishes the NodeClaim never initializes (ResourceNotRegistered): %s", karpenterNotRegistered)
	}
}

// karpenterNotRegistered is Karpenter v1.15's word for a NodeClaim whose
// node never advertises an extended resource its pods requested
// (sigs.k8s.io/karpenter pkg/controllers/nodeclaim/lifecycle/initialization.go,
// RequestedResourcesRegistered; make test-karpenter runs it,
// TestKarpenterBridge).
const karpenterNotRegistered = `Resource "nvidia.com/gpu" was requested but not registered`

func (c *checker) poolHasGPU(pool spec.Pool) bool {
	for _, it := range pool.InstanceTypes {
		if in, ok := c.cat[it]; ok && in.GPU != nil {
			return true
		}
	}
	return false
}

func (c *checker) anyDRAPool() bool {
	for _, pool := range c.f.Pools {
		if c.f.PoolGPUAPI(pool) == spec.GPUAPIDRA && c.poolHasGPU(pool) {
			return true
		}
	}
	return false
}
