// Package eksctl holds the parts of eksctl's ClusterConfig (eksctl.io/v1alpha5)
// that gpufleet writes. eksctl is not importable from the module proxy, so
// the types are ours; tests check them against eksctl's published JSON Schema.
package eksctl

const (
	APIVersion = "eksctl.io/v1alpha5"
	Kind       = "ClusterConfig"
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
	InstanceTypes     []string          `json:"instanceTypes"`
	Spot              bool              `json:"spot,omitempty"`
	AvailabilityZones []string          `json:"availabilityZones"`
	MinSize           int32             `json:"minSize"`
	MaxSize           int32             `json:"maxSize"`
	DesiredCapacity   int32             `json:"desiredCapacity"`
	Labels            map[string]string `json:"labels"`
	Taints            []Taint           `json:"taints,omitempty"`
}

type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}
