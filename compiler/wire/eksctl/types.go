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
}

type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}
