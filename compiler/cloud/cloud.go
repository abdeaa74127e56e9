// Package cloud is the seam for a cloud's facts: the instance types and
// prices it sells, the rules it holds a cluster's names and sizes to, the
// DaemonSets it runs on every node, and the labels, taints and resources
// its node groups and device plugins use. The stages read them through a
// Cloud, selected by the spec's cluster.provider, so no stage names a
// cloud; what a cloud's node groups write is compiler/nodegroup's.
// Adding a cloud is a package under cloud/ and a line in All
// (docs/architecture.md, "Adding a cloud").
package cloud

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// Cloud is one cloud's facts.
type Cloud interface {
	// Provider is the spec's cluster.provider that selects the cloud.
	Provider() string
	// Catalog is the cloud's instance types with the spec's instanceTypes
	// merged over them.
	Catalog(extra map[string]spec.InstanceType) catalog.Catalog
	// Prices are the cloud's built-in on-demand prices.
	Prices() *catalog.PriceTable
	// Validate reports, through errorf at spec paths, what the cloud would
	// refuse of the spec only when its tools first use it: region, zones,
	// Kubernetes version, name and tag lengths, images, EFA.
	Validate(f *spec.Fleet, cat catalog.Catalog, errorf func(path []string, format string, args ...any))
	// NodeAgents are the DaemonSets the cloud runs on every node, for a
	// spec that lists none of its own.
	NodeAgents() map[string]spec.Resources
	// NodeLabels are the labels the cloud's node groups put on a pool's
	// nodes beside gpufleet's, given the pool's GPU (nil on CPU pools).
	NodeLabels(gpu *catalog.GPU) map[string]string
	// Fabric is the resource an EFA pool's nodes advertise their network
	// interfaces as, and the taint that keeps the pool for pods that
	// request them; empty for a cloud without, whose Validate refuses efa.
	Fabric() (resource corev1.ResourceName, taint string)
	// HostDevicePlugin reports whether the pool's node image runs the
	// NVIDIA device plugin on the host, so the chart must stay off it.
	HostDevicePlugin(p spec.Pool) bool
	// GroupLabels are the labels by which a live node names the node group
	// that launched it (gpufleet names each after its pool).
	GroupLabels() []string
	// ManagedTaints are the prefixes of taints the cloud's controllers put
	// on nodes and take off themselves.
	ManagedTaints() []string
	// SpotNoticeSeconds is the notice the cloud gives before it reclaims a
	// spot node: the default termination grace period of Jobs that may
	// run on spot.
	SpotNoticeSeconds() int64
	// AutoscalerGPULabel is the node label by which cluster-autoscaler's
	// provider for the cloud expects a node to advertise nvidia.com/gpu.
	AutoscalerGPULabel() string
	// NetworkLayerLabel is the node label of network layer n (1 the top,
	// the widest) for types whose catalog entry has NetworkLayers, which
	// Kueue's Topology levels name.
	NetworkLayerLabel(n int) string
	// DRADevices are the devices the NVIDIA DRA driver's kubelet plugin
	// publishes in the ResourceSlice of a node of the type; false where
	// the cloud does not know them.
	DRADevices(in catalog.Instance) ([]resourcev1.Device, bool)
}

// All are the clouds. A stage that reads a tree, which does not say which
// cloud made it, asks all of them.
var All = []Cloud{aws.Cloud{}}

// For is the cloud the spec's cluster.provider names.
func For(provider string) (Cloud, error) {
	for _, c := range All {
		if c.Provider() == provider {
			return c, nil
		}
	}
	return nil, fmt.Errorf("cluster.provider %q names no cloud gpufleet knows", provider)
}

// GroupLabels are every cloud's GroupLabels, in All's order.
func GroupLabels() []string {
	var out []string
	for _, c := range All {
		out = append(out, c.GroupLabels()...)
	}
	return out
}

// ManagedTaints are every cloud's ManagedTaints, in All's order.
func ManagedTaints() []string {
	var out []string
	for _, c := range All {
		out = append(out, c.ManagedTaints()...)
	}
	return out
}
