package karpenter

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/encode"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/eksctl"
	wire "github.com/gpufleet/gpufleet/compiler/wire/karpenter"
)

// Preference weights: Karpenter launches for a pending pod from the
// highest-weighted NodePool it fits. Spot first (cheaper, and only classes
// that tolerate spot can use it), and a dedicated pool before a shared one
// (the classes it is dedicated to prefer it, as their affinity says).
const (
	weightBase      = 10
	weightSpot      = 40
	weightDedicated = 20
	// weightReserved puts a reserved pool first of all: its instances
	// are paid for whether they run pods or not.
	weightReserved = 60
)

// Render writes the NodePools and EC2NodeClasses of the pools Karpenter
// provisions. A GitOps controller applies them: they are cluster objects.
func (Provisioner) Render(d *derive.Fleet, out *encode.Batch) []string {
	var pools, classes []any
	seen := map[string]bool{}
	for _, p := range d.Pools {
		if !p.Spec.HasNodePool() {
			continue
		}
		nc := nodeClass(d.Spec.Cluster, p)
		if !seen[nc.Name] {
			seen[nc.Name] = true
			classes = append(classes, nc)
		}
		pools = append(pools, nodePool(d, p, nc.Name))
	}
	if len(pools) == 0 {
		return nil
	}
	out.YAML(Path, append(classes, pools...)...)
	if k := d.Spec.Cluster.Karpenter; k != nil && k.DRA {
		// The spec says the cluster's Karpenter runs with DRANVIDIAGPU: the
		// values that install it so. Not applied: Karpenter's chart takes
		// them.
		on := true
		out.YAML(wire.ValuesPath, &wire.Values{Settings: wire.Settings{AWSFeatureGates: wire.AWSFeatureGates{DRANVIDIAGPU: &on}}})
	}
	return []string{Path}
}

func nodePool(d *derive.Fleet, p derive.Pool, nodeClass string) *wire.NodePool {
	capacity := spec.OnDemand
	weight := int32(weightBase)
	if p.Spec.Capacity == spec.Spot {
		capacity, weight = spec.Spot, weight+weightSpot
	}
	if len(p.Spec.DedicatedTo) > 0 {
		weight += weightDedicated
	}
	capacities := []string{capacity}
	if p.Spec.IsReserved() {
		// Karpenter launches into the reservations its EC2NodeClass selects
		// only under capacity type "reserved"; on-demand beside it is the
		// fallback once they are full (validation keeps spot out).
		capacities, weight = []string{wire.CapacityReserved}, weight+weightReserved
		if p.Spec.FallsBack() {
			capacities = append(capacities, wire.CapacityOnDemand)
		}
	}
	np := &wire.NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: wire.NodePoolAPIVersion, Kind: "NodePool"},
		ObjectMeta: keys.ObjectMeta(p.Name, "", nil),
		Spec: wire.NodePoolSpec{
			Template: wire.NodeClaimTemplate{
				Metadata: wire.TemplateMetadata{Labels: p.NodeLabels()},
				Spec: wire.NodeClaimTemplateSpec{
					Requirements: []corev1.NodeSelectorRequirement{
						{Key: keys.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: p.Spec.InstanceTypes},
						{Key: wire.LabelKarpenterCapacity, Operator: corev1.NodeSelectorOpIn, Values: capacities},
						{Key: keys.LabelZone, Operator: corev1.NodeSelectorOpIn, Values: p.Zones},
					},
					Taints:       p.Taints,
					NodeClassRef: wire.NodeClassRef{Group: wire.EC2NodeClassGroup, Kind: "EC2NodeClass", Name: nodeClass},
					ExpireAfter:  expireAfter(d, p),
				},
			},
			Disruption: disruption(d, p),
			Limits:     limits(p),
			Weight:     weight,
		},
	}
	np.Annotations = map[string]string{keys.AnnotationMaxNodes: strconv.Itoa(int(p.Spec.KarpenterMax()))}
	if p.Spec.IsReserved() {
		np.Annotations[keys.AnnotationReserved] = nodes.FormatReservations(p.Reservations())
	}
	return np
}

// disruption lets Karpenter repack batch capacity, whose work checkpoints
// and requeues, and only retire empty nodes of serving pools, a few at a
// time, so that consolidation never takes replicas of a live endpoint down.
func disruption(d *derive.Fleet, p derive.Pool) wire.Disruption {
	if p.Spec.Capacity == spec.Spot || batchOnly(d, p) {
		return wire.Disruption{ConsolidationPolicy: "WhenEmptyOrUnderutilized", ConsolidateAfter: "5m"}
	}
	return wire.Disruption{ConsolidationPolicy: "WhenEmpty", ConsolidateAfter: "10m", Budgets: []wire.Budget{{Nodes: "10%"}}}
}

// Node lifetimes when the pool sets none. Karpenter's expiry is forceful:
// it drains a node whatever runs there, so batch capacity, whose runs may
// last weeks, never expires (consolidation replaces its nodes once they
// are empty or underused). Serving nodes are recycled at Karpenter's own
// default, written out so that it shows, paced by the PodDisruptionBudgets.
const (
	expireBatch   = "Never"
	expireServing = "720h"
)

// expireAfter is the pool's node lifetime: its own, else by what runs there.
func expireAfter(d *derive.Fleet, p derive.Pool) string {
	switch {
	case p.Spec.ExpireAfter != "":
		return p.Spec.ExpireAfter
	case p.Spec.Capacity == spec.Spot || batchOnly(d, p):
		return expireBatch
	}
	return expireServing
}

// batchOnly reports whether the pool is dedicated to Job classes alone.
// Which shared pools a class lands on is known only after the checker runs.
func batchOnly(d *derive.Fleet, p derive.Pool) bool {
	for _, cl := range p.Spec.DedicatedTo {
		if d.Spec.Classes[cl].Kind != keys.KindJob {
			return false
		}
	}
	return len(p.Spec.DedicatedTo) > 0
}

// limits caps the pool at its max size of its largest instance type, per
// resource, so Karpenter never grows it beyond what the checker assumed.
// Memory is EC2's nominal figure: a registered node counts what it
// reports, more than Karpenter's estimate less the VM overhead, and a
// limit of estimates would refuse the pool's last node.
func limits(p derive.Pool) corev1.ResourceList {
	var cpuMilli, memBytes, gpus int64
	for _, in := range p.Instances {
		c := in.Capacity()
		cpuMilli = max(cpuMilli, c.Cpu().MilliValue())
		memBytes = max(memBytes, int64(in.MemoryGiB*1024)*1024*1024)
		g := c[catalog.ResourceGPU]
		gpus = max(gpus, g.Value())
	}
	n := int64(p.Spec.KarpenterMax())
	rl := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(cpuMilli*n, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(memBytes*n, resource.BinarySI),
	}
	if gpus > 0 {
		rl[catalog.ResourceGPU] = *resource.NewQuantity(gpus*n, resource.DecimalSI)
	}
	return rl
}

// nodeClass is the EC2NodeClass a pool's nodes launch from. Pools with the
// same AMI family and volume share one, named after both; a reserved pool
// has its own, named after it, whose selector terms are its reservations.
func nodeClass(cl spec.Cluster, p derive.Pool) *wire.EC2NodeClass {
	family := aws.AMIFamily(p.Spec)
	alias := "al2023"
	if family == eksctl.Bottlerocket {
		alias = "bottlerocket"
	}
	size := p.VolumeGiB()
	role := aws.KarpenterRole(cl)
	discovery := []wire.TagSelectorTerm{{Tags: map[string]string{wire.DiscoveryTag: cl.Name}}}
	name := fmt.Sprintf("gpufleet-%s-%dgi", alias, size)
	var terms []wire.CapacityReservationSelectorTerm
	for _, r := range p.Spec.Reserved {
		terms = append(terms, wire.CapacityReservationSelectorTerm{ID: r.ID, Tags: r.Tags})
	}
	if len(terms) > 0 {
		name = "gpufleet-" + p.Name + "-reserved"
	}
	return &wire.EC2NodeClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: wire.EC2NodeClassAPIVersion, Kind: "EC2NodeClass"},
		ObjectMeta: keys.ObjectMeta(name, "", nil),
		Spec: wire.EC2NodeClassSpec{
			// The alias picks the NVIDIA variant on GPU instance types.
			AMISelectorTerms:                 []wire.AMISelectorTerm{{Alias: alias + "@latest"}},
			Role:                             role,
			SubnetSelectorTerms:              discovery,
			SecurityGroupSelectorTerms:       discovery,
			BlockDeviceMappings:              blockDevices(family, size),
			CapacityReservationSelectorTerms: terms,
		},
	}
}

// blockDevices sizes the volume images and pods live on: the root on
// AL2023; on Bottlerocket its data volume, beside its small OS volume.
// Encrypted, as Karpenter's own defaults are.
func blockDevices(family string, size int32) []wire.BlockDeviceMapping {
	ebs := func(gib int32) wire.EBS {
		return wire.EBS{VolumeSize: strconv.Itoa(int(gib)) + "Gi", VolumeType: "gp3", Encrypted: true, DeleteOnTermination: true}
	}
	if family == eksctl.Bottlerocket {
		return []wire.BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: ebs(4)}, {DeviceName: "/dev/xvdb", EBS: ebs(size)}}
	}
	return []wire.BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: ebs(size)}}
}
