// Package eksctl holds the parts of eksctl's ClusterConfig (eksctl.io/v1alpha5)
// that gpufleet writes. eksctl is not importable from the module proxy, so
// the types are ours; tests check them against eksctl's published JSON Schema.
package eksctl

const (
	APIVersion = "eksctl.io/v1alpha5"
	Kind       = "ClusterConfig"
)

// Cluster-autoscaler reads these Auto Scaling group tags to build a node
// template for a group with no nodes: without them it cannot know that a
// group at zero would satisfy a pending pod, and never scales it up. The
// Terraform output carries the same tags.
const (
	CATemplatePrefix    = "k8s.io/cluster-autoscaler/node-template/"
	CALabelTagPrefix    = CATemplatePrefix + "label/"
	CATaintTagPrefix    = CATemplatePrefix + "taint/"
	CAResourceTagPrefix = CATemplatePrefix + "resources/"
)

// AMI families a pool may choose (eksctl's amiFamily spelling).
const (
	AmazonLinux2023 = "AmazonLinux2023"
	Bottlerocket    = "Bottlerocket"
)

type ClusterConfig struct {
	APIVersion        string             `json:"apiVersion"`
	Kind              string             `json:"kind"`
	Metadata          Metadata           `json:"metadata"`
	AvailabilityZones []string           `json:"availabilityZones"`
	ManagedNodeGroups []ManagedNodeGroup `json:"managedNodeGroups"`
}

type Metadata struct {
	Name    string `json:"name"`
	Region  string `json:"region"`
	Version string `json:"version"`
}

type ManagedNodeGroup struct {
	Name              string            `json:"name"`
	AMIFamily         string            `json:"amiFamily"`
	InstanceTypes     []string          `json:"instanceTypes"`
	Spot              bool              `json:"spot,omitempty"`
	AvailabilityZones []string          `json:"availabilityZones"`
	MinSize           int32             `json:"minSize"`
	MaxSize           int32             `json:"maxSize"`
	DesiredCapacity   int32             `json:"desiredCapacity"`
	VolumeSize        int32             `json:"volumeSize"`
	EFAEnabled        bool              `json:"efaEnabled,omitempty"`
	Labels            map[string]string `json:"labels"`
	Taints            []Taint           `json:"taints,omitempty"`
	Tags              map[string]string `json:"tags,omitempty"`
	// PropagateASGTags copies tags to the node group's Auto Scaling group,
	// where cluster-autoscaler reads them.
	PropagateASGTags bool `json:"propagateASGTags,omitempty"`
	// CapacityReservation targets the reservation the group's launch
	// template launches into; InstanceMarketOptions says it is a Capacity
	// Block (eksctl then makes the node group CAPACITY_BLOCK, and puts
	// the one instance type in its own launch template: pkg/cfn/builder/
	// managed_nodegroup.go, managed_launch_template.go).
	CapacityReservation   *CapacityReservation   `json:"capacityReservation,omitempty"`
	InstanceMarketOptions *InstanceMarketOptions `json:"instanceMarketOptions,omitempty"`
}

// CapacityReservation is eksctl's capacityReservation. Its keys are
// case-sensitive: eksctl's strict check folds case, its decode does not,
// so a misspelled capacityReservationId is accepted and dropped (eksctl
// issues #7906, #8320, #8542); ladder/eksctl holds the tree to the
// canonical spelling.
type CapacityReservation struct {
	CapacityReservationTarget *CapacityReservationTarget `json:"capacityReservationTarget,omitempty"`
}

type CapacityReservationTarget struct {
	CapacityReservationID string `json:"capacityReservationID"`
}

type InstanceMarketOptions struct {
	MarketType string `json:"marketType"`
}

// MarketCapacityBlock is the only market type eksctl accepts.
const MarketCapacityBlock = "capacity-block"

type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}
