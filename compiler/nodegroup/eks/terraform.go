package eks

import (
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/encode"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/eksctl"
	"github.com/gpufleet/gpufleet/compiler/wire/terraform"
)

// TerraformPath holds the node groups as terraform-aws-modules/eks v21
// input. Terraform loads *.auto.tfvars.json from the root module by itself.
const TerraformPath = "nodegroups/eks-managed-node-groups.auto.tfvars.json"

// terraformVars lists the managed node groups as terraform-aws-modules/eks
// input.
func terraformVars(d *derive.Fleet, out *encode.Batch) {
	byName := map[string]terraform.NodeGroup{}
	tags := map[string]terraform.ASGTag{}
	zones := map[string][]string{}
	for _, p := range d.Pools {
		if !p.Spec.HasNodeGroup() {
			continue // Karpenter provisions it: nodegroups/karpenter.yaml
		}
		for _, g := range groups(p) {
			ng := terraform.NodeGroup{
				AMIType:          amiType(p),
				CapacityType:     terraform.CapacityOnDemand,
				InstanceTypes:    p.Spec.InstanceTypes,
				MinSize:          g.min,
				MaxSize:          g.max,
				DesiredSize:      g.desired,
				Labels:           p.NodeLabels(),
				DiskSize:         p.VolumeGiB(),
				EnableEFASupport: p.Spec.EFA,
			}
			if p.Spec.Capacity == spec.Spot {
				ng.CapacityType = terraform.CapacitySpot
			}
			reserveTF(&ng, p)
			// Bottlerocket's root volume holds only the OS; images and pods
			// live on its data volume.
			dev := "xvda"
			if aws.AMIFamily(p.Spec) == eksctl.Bottlerocket {
				dev = "xvdb"
			}
			ng.BlockDeviceMappings = map[string]terraform.BlockDevice{dev: {
				DeviceName: "/dev/" + dev,
				EBS:        terraform.EBS{VolumeSize: p.VolumeGiB(), VolumeType: "gp3", DeleteOnTermination: true},
			}}
			for _, t := range p.Taints {
				if ng.Taints == nil {
					ng.Taints = map[string]terraform.Taint{}
				}
				// Keys are unique per pool (validation), so they name the taints.
				ng.Taints[t.Key] = terraform.Taint{Key: t.Key, Value: t.Value, Effect: terraform.Effects[string(t.Effect)]}
			}
			byName[g.name] = ng
			for k, v := range scaleFromZeroTags(p) {
				tags[g.name+"|"+k] = terraform.ASGTag{NodeGroup: g.name, Key: k, Value: v}
			}
			zones[g.name] = g.zones
		}
	}
	out.JSON(TerraformPath, map[string]any{terraform.NodeGroupsVar: byName, terraform.ASGTagsVar: tags, terraform.ZonesVar: zones})
}

func amiType(p derive.Pool) string {
	switch {
	case aws.AMIFamily(p.Spec) == eksctl.Bottlerocket && p.GPU != nil:
		return "BOTTLEROCKET_x86_64_NVIDIA"
	case aws.AMIFamily(p.Spec) == eksctl.Bottlerocket:
		return "BOTTLEROCKET_x86_64"
	case p.GPU != nil:
		return "AL2023_x86_64_NVIDIA"
	}
	return "AL2023_x86_64_STANDARD"
}

// reserveTF is reserve's Terraform half: the same reservation in the
// module's launch template, and a block's group CAPACITY_BLOCK.
func reserveTF(ng *terraform.NodeGroup, p derive.Pool) {
	if len(p.Spec.Reserved) == 0 {
		return
	}
	r := p.Spec.Reserved[0]
	custom := true
	ng.UseCustomLaunchTemplate = &custom
	ng.CapacityReservationSpecification = &terraform.CapacityReservationSpecification{
		CapacityReservationTarget: terraform.CapacityReservationTarget{CapacityReservationID: r.ID},
	}
	if r.IsBlock() {
		ng.CapacityType = terraform.CapacityBlock
		ng.InstanceMarketOptions = &terraform.InstanceMarketOptions{MarketType: eksctl.MarketCapacityBlock}
	}
}
