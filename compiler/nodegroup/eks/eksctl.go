package eks

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/encode"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/eksctl"
)

// EksctlPath is where the node groups are written; NodeGroups reads them
// back from there.
const EksctlPath = "nodegroups/eksctl.yaml"

// eksctl lists the managed node groups in an eksctl ClusterConfig.
func eksctlConfig(d *derive.Fleet, out *encode.Batch) {
	cl := d.Spec.Cluster
	cfg := eksctl.ClusterConfig{
		APIVersion:        eksctl.APIVersion,
		Kind:              eksctl.Kind,
		Metadata:          eksctl.Metadata{Name: cl.Name, Region: cl.Region, Version: cl.Version},
		AvailabilityZones: cl.Zones,
		ManagedNodeGroups: []eksctl.ManagedNodeGroup{},
	}
	for _, p := range d.Pools {
		if !p.Spec.HasNodeGroup() {
			continue // Karpenter provisions it: nodegroups/karpenter.yaml
		}
		for _, g := range groups(p) {
			ng := eksctl.ManagedNodeGroup{
				Name:              g.name,
				AMIFamily:         aws.AMIFamily(p.Spec),
				InstanceTypes:     p.Spec.InstanceTypes,
				Spot:              p.Spec.Capacity == spec.Spot,
				AvailabilityZones: g.zones,
				MinSize:           g.min,
				MaxSize:           g.max,
				DesiredCapacity:   g.desired,
				VolumeSize:        p.VolumeGiB(),
				EFAEnabled:        p.Spec.EFA,
				Labels:            p.NodeLabels(),
				Tags:              scaleFromZeroTags(p),
				PropagateASGTags:  true,
			}
			for _, t := range p.Taints {
				ng.Taints = append(ng.Taints, eksctl.Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
			}
			reserve(&ng, p)
			cfg.ManagedNodeGroups = append(cfg.ManagedNodeGroups, ng)
		}
	}
	out.YAML(EksctlPath, &cfg)
}

// reserve points a reserved pool's group at its reservation (validation
// leaves a managed pool one, by ID, in the group's one zone): eksctl
// writes it into the group's own launch template, and for a Capacity
// Block the market type and the one instance type too, and makes the node
// group CAPACITY_BLOCK. A block's group starts at 0 nodes (validation).
func reserve(ng *eksctl.ManagedNodeGroup, p derive.Pool) {
	if len(p.Spec.Reserved) == 0 {
		return
	}
	r := p.Spec.Reserved[0]
	ng.CapacityReservation = &eksctl.CapacityReservation{CapacityReservationTarget: &eksctl.CapacityReservationTarget{CapacityReservationID: r.ID}}
	if r.IsBlock() {
		ng.InstanceMarketOptions = &eksctl.InstanceMarketOptions{MarketType: eksctl.MarketCapacityBlock}
	}
	ng.Tags[keys.AnnotationReserved] = nodes.FormatReservations(p.Reservations())
}

func desired(p derive.Pool) int32 {
	if p.Spec.Size.Desired != nil {
		return *p.Spec.Size.Desired
	}
	return p.Spec.Size.Min
}

// scaleFromZeroTags are cluster-autoscaler's node-template tags for every
// label, taint and GPU of the pool's nodes. A taint's value must end in
// ":<Effect>": cluster-autoscaler ignores a taint tag without it, so its
// template node would lack the taint and it would scale up a GPU group for a
// pod that the real nodes repel.
func scaleFromZeroTags(p derive.Pool) map[string]string {
	tags := map[string]string{}
	for k, v := range p.NodeLabels() {
		tags[eksctl.CALabelTagPrefix+k] = v
	}
	for _, t := range p.Taints {
		tags[eksctl.CATaintTagPrefix+t.Key] = t.Value + ":" + string(t.Effect)
	}
	for r, n := range gpuResources(p) {
		tags[eksctl.CAResourceTagPrefix+string(r)] = strconv.FormatInt(n, 10)
	}
	// The EFA interfaces the EFA device plugin advertises, the fewest of
	// any type, so that a pod requesting them scales the group from zero.
	if p.Spec.EFA {
		efa := int64(-1)
		for _, in := range p.Instances {
			if efa < 0 || in.EFA < efa {
				efa = in.EFA
			}
		}
		if efa > 0 {
			tags[eksctl.CAResourceTagPrefix+aws.ResourceEFA] = strconv.FormatInt(efa, 10)
		}
	}
	return tags
}

// gpuResources is, per GPU resource the device plugin advertises (time-
// sliced replicas, MIG slices, and 0 whole GPUs on MIG nodes), the fewest
// any of the pool's instance types has: a template promising more would
// scale up nodes the pod does not fit on.
func gpuResources(p derive.Pool) map[corev1.ResourceName]int64 {
	out := map[corev1.ResourceName]int64{}
	for _, in := range p.Instances {
		if in.GPU == nil {
			continue
		}
		for r, q := range in.Shared(in.Capacity(), p.Replicas(), p.Spec.MIG) {
			if r != keys.ResourceGPU && !catalog.IsMIGResource(r) {
				continue
			}
			if n, ok := out[r]; !ok || q.Value() < n {
				out[r] = q.Value()
			}
		}
	}
	return out
}
