// Package nodes is the contract between the provisioners (compiler/nodegroup),
// which know how each pool's nodes are launched, and the placement checker,
// which places pods on them: a Group is what one provisioner launches for
// one pool at max size, read back from the provisioner's own files in the
// tree.
package nodes

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// Source is where a provisioner's node groups come from: it reads them
// back from the files it wrote in the tree.
type Source interface {
	NodeGroups(t tree.Typed) ([]Group, error)
}

// Group is one pool's nodes as one provisioner launches them.
type Group struct {
	Pool string
	// Names are what its provisioner calls the pool's node groups or
	// NodePool, which its nodes carry in the group labels (PoolLabels): the
	// pool's name, or with zoneGroups one <pool>-<zone> per zone.
	Names []string
	// Source names the provisioner and file the group was read from, for
	// messages.
	Source string
	Spot   bool
	// InstanceTypes and Zones are the group's, in the order its file lists
	// them: an auto scaling group balances over zones in that order.
	InstanceTypes, Zones []string
	MaxNodes             int32
	// Standing are the nodes that run with no pod pending: a managed
	// group's min size, to which cluster-autoscaler scales idle nodes
	// down (its desired size is only where it starts); none of
	// Karpenter's, which it launches only for pending pods.
	Standing int32
	// Desired is where a managed group starts (eksctl's desiredCapacity),
	// for plans; cluster-autoscaler moves it between Standing and MaxNodes.
	Desired int32
	// FromZero names the pool's managed node groups whose min size is 0:
	// cluster-autoscaler scales each idle one down to no node, and then
	// builds its next node from the Auto Scaling group's template, not
	// from a node of the group (AutoscalerDRAFromZero check).
	FromZero []string
	// Labels every node of the pool carries, whoever launches it, and
	// OwnLabels those only this provisioner's nodes carry (Karpenter's
	// karpenter.sh/ labels).
	Labels, OwnLabels map[string]string
	Taints            []corev1.Taint
	// Image is the node image family as its provisioner names it:
	// eksctl's amiFamily, or the EC2NodeClass's AMI alias family
	// ("al2023", "bottlerocket"). Neither EKS nor Karpenter changes it
	// on a running node (plans).
	Image string
	// Fixed is what the provisioner's node groups cannot change in
	// place, nil where they can change all (plans).
	Fixed *Fixed
	// NodeClass and ExpireAfter are a Karpenter NodePool's nodeClassRef
	// name and spec.template.spec.expireAfter: with its labels and taints,
	// what Karpenter's NodePool hash covers (plans).
	NodeClass, ExpireAfter string
	// HostDevicePlugin is true for nodes whose image runs the NVIDIA
	// device plugin on the host, not as a DaemonSet pod (Bottlerocket's
	// NVIDIA variants on AWS).
	HostDevicePlugin bool
	// FirstTypeOnly groups launch their first instance type: an on-demand
	// managed node group allocates in priority order, and
	// cluster-autoscaler builds its scale-from-zero template from the
	// first type. Karpenter picks any type that fits.
	FirstTypeOnly bool
	// EFA groups attach EFA interfaces, which the EFA device plugin
	// (installed with them) advertises.
	EFA bool
	// KarpenterNodes are the nodes of MaxNodes that Karpenter launches: all
	// of a Karpenter group's, a "both" pool's share once merged. They exist
	// only once a pending pod fits one of the instance types as Karpenter
	// computes it.
	KarpenterNodes int32
	// NoKarpenterDRA says why Karpenter launches none of them for a pod
	// that claims DRA devices ("" where it does).
	NoKarpenterDRA string
	// ZoneBlind groups are one Auto Scaling group over several zones,
	// scaled by cluster-autoscaler, which cannot choose the zone a new node
	// launches in. Karpenter launches in the zone a pending pod needs.
	ZoneBlind bool
	// PriceRegion, set on Karpenter's groups, is the region it prices the
	// types in: it launches none it has no price for there.
	PriceRegion string
	// Reserved are the capacity reservations the group launches into
	// first, and FallsBack whether it launches on-demand once they are
	// full (reserved.go).
	Reserved  []Reservation
	FallsBack bool
}

// Launched are the instance types the group's nodes are of, as the
// checker credits them.
func (g Group) Launched() []string {
	if g.FirstTypeOnly && len(g.InstanceTypes) > 0 {
		return g.InstanceTypes[:1]
	}
	return g.InstanceTypes
}

// NodeLabels are all the labels the group's nodes carry.
func (g Group) NodeLabels() map[string]string {
	out := make(map[string]string, len(g.Labels)+len(g.OwnLabels))
	maps.Copy(out, g.Labels)
	maps.Copy(out, g.OwnLabels)
	return out
}

// Fixed is what a provisioner cannot change of its node groups in
// place: Fields as plans name them (instanceTypes, capacityType, zones,
// amiFamily), Why the provisioner's reason, with %s for the fields, and
// Renamed its reason, with %s for the groups deleted and those created,
// when a group's name changes. Recreated says why a group replaced under
// its own name is deleted before it is created again (plans: none of its
// nodes run beside the new ones).
type Fixed struct {
	Fields                  []string
	Why, Renamed, Recreated string
}

// Merge joins the groups of every provisioner, in their order. A pool that
// several provisioners launch is checked once, as the first one's
// group with their max sizes added (a "both" pool's managed baseline and
// Karpenter's share); every other provisioner's group of it must launch the
// same nodes, or the checker would prove one and the cluster run another.
func Merge(byProvisioner ...[]Group) ([]Group, error) {
	var out []Group
	at := map[string]int{}
	for _, groups := range byProvisioner {
		for _, g := range groups {
			i, ok := at[g.Pool]
			if !ok {
				at[g.Pool] = len(out)
				out = append(out, g)
				continue
			}
			if g.Source == out[i].Source {
				// One provisioner's groups of one pool: a group per zone.
				if err := zoneSplit(&out[i], g); err != nil {
					return nil, fmt.Errorf("pool %s: %s: %w", g.Pool, g.Source, err)
				}
				continue
			}
			if err := same(out[i], g); err != nil {
				return nil, fmt.Errorf("pool %s: %s and %s disagree: %w", g.Pool, out[i].Source, g.Source, err)
			}
			out[i].Names = append(out[i].Names, g.Names...)
			out[i].MaxNodes += g.MaxNodes
			out[i].Standing += g.Standing
			out[i].Desired += g.Desired
			out[i].FromZero = append(slices.Clone(out[i].FromZero), g.FromZero...)
			out[i].KarpenterNodes += g.KarpenterNodes
			if g.KarpenterNodes > 0 {
				out[i].NoKarpenterDRA = g.NoKarpenterDRA
				out[i].NodeClass, out[i].ExpireAfter = g.NodeClass, g.ExpireAfter
			}
			if out[i].Fixed == nil {
				out[i].Fixed = g.Fixed
			}
			out[i].ZoneBlind = out[i].ZoneBlind && g.ZoneBlind
		}
	}
	return out, nil
}

// zoneSplit adds g, one zone's group of a pool with a group per zone, to
// into, the pool so far: the same nodes in another zone, whose max adds
// to the pool's. The checker balances a pool's max over its zones as the
// split did (nodegroup/eks), so the zones are taken in the groups' order.
func zoneSplit(into *Group, g Group) error {
	for _, z := range g.Zones {
		if slices.Contains(into.Zones, z) {
			return fmt.Errorf("two node groups in zone %s", z)
		}
	}
	probe := *into
	probe.Zones, probe.MaxNodes, probe.ZoneBlind = g.Zones, g.MaxNodes, g.ZoneBlind
	if err := same(probe, g); err != nil {
		return fmt.Errorf("its groups per zone disagree: %w", err)
	}
	into.Zones = append(slices.Clone(into.Zones), g.Zones...)
	into.Names = append(slices.Clone(into.Names), g.Names...)
	into.MaxNodes += g.MaxNodes
	into.Standing += g.Standing
	into.Desired += g.Desired
	into.FromZero = append(slices.Clone(into.FromZero), g.FromZero...)
	into.KarpenterNodes += g.KarpenterNodes
	into.ZoneBlind = into.ZoneBlind || g.ZoneBlind
	return nil
}

// same compares two provisioners' groups of one pool, leaving out the
// labels only one of them sets.
func same(a, b Group) error {
	switch {
	case a.Spot != b.Spot:
		return fmt.Errorf("spot %v and %v", a.Spot, b.Spot)
	case !slices.Equal(a.InstanceTypes, b.InstanceTypes):
		return fmt.Errorf("instance types %v and %v", a.InstanceTypes, b.InstanceTypes)
	case !slices.Equal(a.Zones, b.Zones):
		return fmt.Errorf("zones %v and %v", a.Zones, b.Zones)
	case a.EFA != b.EFA:
		return fmt.Errorf("EFA %v and %v", a.EFA, b.EFA)
	case a.HostDevicePlugin != b.HostDevicePlugin:
		return fmt.Errorf("device plugin on the host %v and %v", a.HostDevicePlugin, b.HostDevicePlugin)
	case !maps.Equal(a.Labels, b.Labels):
		return fmt.Errorf("labels %v and %v", a.Labels, b.Labels)
	case !slices.EqualFunc(a.Taints, b.Taints, func(x, y corev1.Taint) bool { return x.MatchTaint(&y) && x.Value == y.Value }):
		return fmt.Errorf("taints %v and %v", a.Taints, b.Taints)
	}
	return nil
}
