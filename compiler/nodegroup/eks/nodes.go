package eks

import (
	"fmt"
	"github.com/gpufleet/gpufleet/compiler/keys"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/eksctl"
)

// NodeGroups reads the managed node groups back from eksctl's file, which
// every fleet has (with no managed group when Karpenter launches every
// pool). Terraform's file holds the same groups, as its tests pin.
func (Provisioner) NodeGroups(t tree.Typed) ([]nodes.Group, error) {
	if _, ok := t.Tree[EksctlPath]; !ok {
		return nil, fmt.Errorf("check: %s missing from the tree", EksctlPath)
	}
	var cfgs []eksctl.ClusterConfig
	if err := tree.DecodeAll(t, EksctlPath, &cfgs, each); err != nil {
		return nil, fmt.Errorf("check: %s: %w", EksctlPath, err)
	}
	if len(cfgs) != 1 {
		return nil, fmt.Errorf("check: %s: %d ClusterConfigs, want 1", EksctlPath, len(cfgs))
	}
	cfg := cfgs[0]
	var out []nodes.Group
	for _, ng := range cfg.ManagedNodeGroups {
		// A pool with zoneGroups has a group per zone, named <pool>-<zone>;
		// the pool label names the pool.
		pool := ng.Name
		if l := ng.Labels[keys.LabelPool]; l != "" {
			pool = l
		}
		g := nodes.Group{
			Pool: pool, Names: []string{ng.Name}, Source: EksctlPath, Spot: ng.Spot,
			InstanceTypes: ng.InstanceTypes, Zones: ng.AvailabilityZones, MaxNodes: ng.MaxSize, Standing: ng.MinSize, Desired: ng.DesiredCapacity, Labels: ng.Labels,
			Image:            ng.AMIFamily,
			Fixed:            &fixed,
			HostDevicePlugin: ng.AMIFamily == eksctl.Bottlerocket,
			FirstTypeOnly:    true,
			EFA:              ng.EFAEnabled,
			ZoneBlind:        len(ng.AvailabilityZones) > 1,
		}
		if ng.MinSize == 0 {
			g.FromZero = []string{ng.Name}
		}
		rs, err := reserved(ng)
		if err != nil {
			return nil, fmt.Errorf("check: %s: node group %s: %w", EksctlPath, ng.Name, err)
		}
		g.Reserved = rs
		for _, t := range ng.Taints {
			g.Taints = append(g.Taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
		}
		out = append(out, g)
	}
	return out, nil
}

// reserved reads a group's reservation: the one its capacityReservation
// targets, as its gpufleet.dev/reserved tag records it.
func reserved(ng eksctl.ManagedNodeGroup) ([]nodes.Reservation, error) {
	rs, err := nodes.ParseReservations(ng.Tags[keys.AnnotationReserved])
	if err != nil {
		return nil, fmt.Errorf("tag %s: %w", keys.AnnotationReserved, err)
	}
	cr := ng.CapacityReservation
	switch {
	case cr == nil && len(rs) == 0:
		return nil, nil
	case cr == nil || cr.CapacityReservationTarget == nil || cr.CapacityReservationTarget.CapacityReservationID == "":
		return nil, fmt.Errorf("tag %s records a reservation but capacityReservation.capacityReservationTarget.capacityReservationID names none", keys.AnnotationReserved)
	case len(rs) != 1 || rs[0].Selector != cr.CapacityReservationTarget.CapacityReservationID:
		return nil, fmt.Errorf("capacityReservationID %s is not the one reservation tag %s records", cr.CapacityReservationTarget.CapacityReservationID, keys.AnnotationReserved)
	case rs[0].Block != (ng.InstanceMarketOptions != nil && ng.InstanceMarketOptions.MarketType == eksctl.MarketCapacityBlock):
		return nil, fmt.Errorf("instanceMarketOptions.marketType disagrees with tag %s on whether %s is a Capacity Block", keys.AnnotationReserved, rs[0].Selector)
	}
	return rs, nil
}

// each runs f in turn: eksctl's file is one document.
func each(n int, f func(i int) error) error {
	for i := 0; i < n; i++ {
		if err := f(i); err != nil {
			return err
		}
	}
	return nil
}

// fixed is what a plan must replace, not update, of a managed node group.
// EKS's UpdateNodegroupConfig takes only labels, taints, scalingConfig,
// updateConfig and nodeRepairConfig, and UpdateNodegroupVersion only a
// Kubernetes version, release version or launch template version
// (docs.aws.amazon.com/eks/latest/APIReference/API_UpdateNodegroupConfig.html,
// API_UpdateNodegroupVersion.html): instanceTypes, capacityType, subnets and
// amiType are fixed at CreateNodegroup. eksctl v0.230.0 sends
// UpdateNodegroupConfig with the updateConfig only ('eksctl update
// nodegroup', pkg/actions/nodegroup/update.go) and the scalingConfig
// ('eksctl scale nodegroup', scale.go); its docs say to create a new node
// group and delete the old. The eksctl rung holds Fields to the SDK's
// input types (TestPlanReplaceIsEKSs).
// Terraform's aws_eks_node_group marks instance_types, capacity_type,
// subnet_ids and ami_type ForceNew (hashicorp/terraform-provider-aws
// internal/service/eks/node_group.go): "forces replacement". Both key a
// node group by its name (eksctl's name, terraform-aws-modules/eks's
// eks_managed_node_groups map key), so a renamed group, or zoneGroups
// turned on or off, is groups deleted and created.
var fixed = nodes.Fixed{
	Fields:  []string{"instanceTypes", "capacityType", "zones", "amiFamily"},
	Why:     "EKS cannot change a managed node group's %s in place (UpdateNodegroupConfig and UpdateNodegroupVersion do not take it): eksctl deletes the node group and creates it again, Terraform's aws_eks_node_group forces replacement; every node drains",
	Renamed: "node groups %s deleted and %s created (eksctl and Terraform key node groups by name); every node of the old ones drains",
	// A name is one node group at a time in EKS (CreateNodegroup refuses
	// a name in use), and Terraform's aws_eks_node_group keys it by name.
	Recreated: "its managed node groups keep their names, so eksctl and Terraform delete the old before creating the new",
}
