package render

import (
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/eksctl"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// EksctlPath is where the node groups are written; the checker reads them
// back from there.
const EksctlPath = "nodegroups/eksctl.yaml"

func (r *renderer) nodegroups() {
	cl := r.d.Spec.Cluster
	cfg := eksctl.ClusterConfig{
		APIVersion:        eksctl.APIVersion,
		Kind:              eksctl.Kind,
		Metadata:          eksctl.Metadata{Name: cl.Name, Region: cl.Region, Version: cl.Version},
		AvailabilityZones: cl.Zones,
		ManagedNodeGroups: []eksctl.ManagedNodeGroup{},
	}
	for _, p := range r.d.Pools {
		ng := eksctl.ManagedNodeGroup{
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
			ng.Taints = append(ng.Taints, eksctl.Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
		}
		cfg.ManagedNodeGroups = append(cfg.ManagedNodeGroups, ng)
	}
	r.emit(EksctlPath, &cfg)
}

func desired(p derive.Pool) int32 {
	if p.Spec.Size.Desired != nil {
		return *p.Spec.Size.Desired
	}
	return p.Spec.Size.Min
}
