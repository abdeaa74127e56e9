package render

import (
	"bytes"
	"encoding/json"
	"path"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/eksctl"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// TerraformPath holds the node groups as terraform-aws-modules/eks v21
// input. Terraform loads *.auto.tfvars.json from the root module by itself.
const TerraformPath = "nodegroups/eks-managed-node-groups.auto.tfvars.json"

// The variables the file sets; the root module declares them.
const (
	// TFNodeGroupsVar is the module's eks_managed_node_groups input.
	TFNodeGroupsVar = "eks_managed_node_groups"
	// TFASGTagsVar is flat so that it can be an aws_autoscaling_group_tag
	// for_each: the module tags node groups, not their Auto Scaling groups,
	// and cluster-autoscaler reads only the latter.
	TFASGTagsVar = "eks_managed_node_group_asg_tags"
	// TFZonesVar lists each group's zones. The module takes subnet_ids,
	// which gpufleet cannot know; the root module maps zones to subnets so
	// that zone-pinned (and EFA) pools stay where the checker placed them.
	TFZonesVar = "eks_managed_node_group_zones"
)

// TFNodeGroup is one eks_managed_node_groups entry. Field names are the
// module's; the type check in terraform_test.go pins them.
type TFNodeGroup struct {
	AMIType       string             `json:"ami_type"`
	CapacityType  string             `json:"capacity_type"`
	InstanceTypes []string           `json:"instance_types"`
	MinSize       int32              `json:"min_size"`
	MaxSize       int32              `json:"max_size"`
	DesiredSize   int32              `json:"desired_size"`
	Labels        map[string]string  `json:"labels"`
	Taints        map[string]TFTaint `json:"taints,omitempty"`
	// DiskSize applies only with use_custom_launch_template = false; the
	// module's default launch template takes BlockDeviceMappings instead.
	// Both are set so the size holds in either mode.
	DiskSize            int32                    `json:"disk_size"`
	BlockDeviceMappings map[string]TFBlockDevice `json:"block_device_mappings"`
	EnableEFASupport    bool                     `json:"enable_efa_support,omitempty"`
}

type TFTaint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

type TFBlockDevice struct {
	DeviceName string `json:"device_name"`
	EBS        TFEBS  `json:"ebs"`
}

type TFEBS struct {
	VolumeSize          int32  `json:"volume_size"`
	VolumeType          string `json:"volume_type"`
	DeleteOnTermination bool   `json:"delete_on_termination"`
}

// TFASGTag is one scale-from-zero tag on one node group's Auto Scaling group.
type TFASGTag struct {
	NodeGroup string `json:"node_group"`
	Key       string `json:"key"`
	Value     string `json:"value"`
}

// tfEffects are the EKS API's taint effects.
var tfEffects = map[string]string{
	"NoSchedule":       "NO_SCHEDULE",
	"NoExecute":        "NO_EXECUTE",
	"PreferNoSchedule": "PREFER_NO_SCHEDULE",
}

func (r *renderer) terraform() {
	groups := map[string]TFNodeGroup{}
	tags := map[string]TFASGTag{}
	zones := map[string][]string{}
	for _, p := range r.d.Pools {
		if !p.Spec.HasNodeGroup() {
			continue // Karpenter provisions it: nodegroups/karpenter.yaml
		}
		ng := TFNodeGroup{
			AMIType:          amiType(p),
			CapacityType:     "ON_DEMAND",
			InstanceTypes:    p.Spec.InstanceTypes,
			MinSize:          p.Spec.Size.Min,
			MaxSize:          p.Spec.Size.Max,
			DesiredSize:      desired(p),
			Labels:           p.Labels,
			DiskSize:         volumeSize(p),
			EnableEFASupport: p.Spec.EFA,
		}
		if p.Spec.Capacity == spec.Spot {
			ng.CapacityType = "SPOT"
		}
		// Bottlerocket's root volume holds only the OS; images and pods
		// live on its data volume.
		dev := "xvda"
		if amiFamily(p) == eksctl.Bottlerocket {
			dev = "xvdb"
		}
		ng.BlockDeviceMappings = map[string]TFBlockDevice{dev: {
			DeviceName: "/dev/" + dev,
			EBS:        TFEBS{VolumeSize: volumeSize(p), VolumeType: "gp3", DeleteOnTermination: true},
		}}
		for _, t := range p.Taints {
			if ng.Taints == nil {
				ng.Taints = map[string]TFTaint{}
			}
			// Keys are unique per pool (validation), so they name the taints.
			ng.Taints[t.Key] = TFTaint{Key: t.Key, Value: t.Value, Effect: tfEffects[string(t.Effect)]}
		}
		groups[p.Name] = ng
		for k, v := range scaleFromZeroTags(p) {
			tags[p.Name+"|"+k] = TFASGTag{NodeGroup: p.Name, Key: k, Value: v}
		}
		zones[p.Name] = p.Zones
	}
	r.emitJSON(TerraformPath, map[string]any{TFNodeGroupsVar: groups, TFASGTagsVar: tags, TFZonesVar: zones})
}

func amiType(p derive.Pool) string {
	switch {
	case amiFamily(p) == eksctl.Bottlerocket && p.GPU != nil:
		return "BOTTLEROCKET_x86_64_NVIDIA"
	case amiFamily(p) == eksctl.Bottlerocket:
		return "BOTTLEROCKET_x86_64"
	case p.GPU != nil:
		return "AL2023_x86_64_NVIDIA"
	}
	return "AL2023_x86_64_STANDARD"
}

// emitJSON writes v as indented JSON with every object's keys sorted (a
// round trip through maps), so the bytes depend on the spec alone.
func (r *renderer) emitJSON(p string, v any) {
	if r.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err == nil {
		var m any
		if err = json.Unmarshal(b, &m); err == nil {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			err = enc.Encode(m)
			b = buf.Bytes()
		}
	}
	if err != nil {
		r.err = err
		return
	}
	r.tree[path.Clean(p)] = b
}
