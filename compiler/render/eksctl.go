package render

import (
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// eksctl's ClusterConfig (eksctl.io/v1alpha5), only the fields gpufleet
// sets. eksctl is not importable from the module proxy, so these types are
// ours and tests check them against eksctl's published JSON Schema.
type eksctlConfig struct {
	APIVersion        string            `json:"apiVersion"`
	Kind              string            `json:"kind"`
	Metadata          eksctlMeta        `json:"metadata"`
	AvailabilityZones []string          `json:"availabilityZones"`
	ManagedNodeGroups []eksctlNodeGroup `json:"managedNodeGroups"`
}

type eksctlMeta struct {
	Name    string `json:"name"`
	Region  string `json:"region"`
	Version string `json:"version"`
}

type eksctlNodeGroup struct {
	Name              string            `json:"name"`
	InstanceTypes     []string          `json:"instanceTypes"`
	Spot              bool              `json:"spot,omitempty"`
	AvailabilityZones []string          `json:"availabilityZones"`
	MinSize           int32             `json:"minSize"`
	MaxSize           int32             `json:"maxSize"`
	DesiredCapacity   int32             `json:"desiredCapacity"`
	Labels            map[string]string `json:"labels"`
	Taints            []eksctlTaint     `json:"taints,omitempty"`
}

type eksctlTaint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

func (r *renderer) nodegroups() {
	cl := r.d.Spec.Cluster
	cfg := eksctlConfig{
		APIVersion:        "eksctl.io/v1alpha5",
		Kind:              "ClusterConfig",
		Metadata:          eksctlMeta{Name: cl.Name, Region: cl.Region, Version: cl.Version},
		AvailabilityZones: cl.Zones,
		ManagedNodeGroups: []eksctlNodeGroup{},
	}
	for _, p := range r.d.Pools {
		ng := eksctlNodeGroup{
			Name:              p.Name,
			InstanceTypes:     p.Spec.InstanceTypes,
			Spot:              p.Spec.Capacity == spec.Spot,
			AvailabilityZones: p.Zones,
			MinSize:           p.Spec.Size.Min,
			MaxSize:           p.Spec.Size.Max,
			DesiredCapacity:   desired(p),
			Labels:            p.Labels,
		}
		for _, t := range p.Taints {
			ng.Taints = append(ng.Taints, eksctlTaint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
		}
		cfg.ManagedNodeGroups = append(cfg.ManagedNodeGroups, ng)
	}
	r.emit("nodegroups/eksctl.yaml", &cfg)
}

func desired(p derive.Pool) int32 {
	if p.Spec.Size.Desired != nil {
		return *p.Spec.Size.Desired
	}
	return p.Spec.Size.Min
}
