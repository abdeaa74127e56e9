// Package terraform holds the input terraform-aws-modules/eks v21 takes for
// EKS managed node groups, as gpufleet writes it in a .auto.tfvars.json.
package terraform

// The variables the file sets; the root module declares them.
const (
	// NodeGroupsVar is the module's eks_managed_node_groups input.
	NodeGroupsVar = "eks_managed_node_groups"
	// ASGTagsVar is flat so that it can be an aws_autoscaling_group_tag
	// for_each: the module tags node groups, not their Auto Scaling groups,
	// and cluster-autoscaler reads only the latter.
	ASGTagsVar = "eks_managed_node_group_asg_tags"
	// ZonesVar lists each group's zones. The module takes subnet_ids,
	// which gpufleet cannot know; the root module maps zones to subnets so
	// that zone-pinned (and EFA) pools stay where the checker placed them.
	ZonesVar = "eks_managed_node_group_zones"
)

// NodeGroup is one eks_managed_node_groups entry. Field names are the
// module's; the type check in terraform_test.go pins them.
type NodeGroup struct {
	AMIType       string            `json:"ami_type"`
	CapacityType  string            `json:"capacity_type"`
	InstanceTypes []string          `json:"instance_types"`
	MinSize       int32             `json:"min_size"`
	MaxSize       int32             `json:"max_size"`
	DesiredSize   int32             `json:"desired_size"`
	Labels        map[string]string `json:"labels"`
	Taints        map[string]Taint  `json:"taints,omitempty"`
	// DiskSize applies only with use_custom_launch_template = false; the
	// module's default launch template takes BlockDeviceMappings instead.
	// Both are set so the size holds in either mode.
	DiskSize            int32                  `json:"disk_size"`
	BlockDeviceMappings map[string]BlockDevice `json:"block_device_mappings"`
	EnableEFASupport    bool                   `json:"enable_efa_support,omitempty"`
	// A reserved group's launch template targets its reservation and, for
	// a Capacity Block, its market; the module writes both into the
	// launch template it makes, which UseCustomLaunchTemplate keeps (its
	// default, written out: without it the module's EKS default template
	// would drop them).
	UseCustomLaunchTemplate          *bool                             `json:"use_custom_launch_template,omitempty"`
	CapacityReservationSpecification *CapacityReservationSpecification `json:"capacity_reservation_specification,omitempty"`
	InstanceMarketOptions            *InstanceMarketOptions            `json:"instance_market_options,omitempty"`
}

type CapacityReservationSpecification struct {
	CapacityReservationTarget CapacityReservationTarget `json:"capacity_reservation_target"`
}

type CapacityReservationTarget struct {
	CapacityReservationID string `json:"capacity_reservation_id"`
}

type InstanceMarketOptions struct {
	MarketType string `json:"market_type"`
}

// Capacity types of aws_eks_node_group.
const (
	CapacityOnDemand = "ON_DEMAND"
	CapacitySpot     = "SPOT"
	CapacityBlock    = "CAPACITY_BLOCK"
)

type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

type BlockDevice struct {
	DeviceName string `json:"device_name"`
	EBS        EBS    `json:"ebs"`
}

type EBS struct {
	VolumeSize          int32  `json:"volume_size"`
	VolumeType          string `json:"volume_type"`
	DeleteOnTermination bool   `json:"delete_on_termination"`
}

// ASGTag is one scale-from-zero tag on one node group's Auto Scaling group.
type ASGTag struct {
	NodeGroup string `json:"node_group"`
	Key       string `json:"key"`
	Value     string `json:"value"`
}

// Effects are the EKS API's taint effects.
var Effects = map[string]string{
	"NoSchedule":       "NO_SCHEDULE",
	"NoExecute":        "NO_EXECUTE",
	"PreferNoSchedule": "PREFER_NO_SCHEDULE",
}
