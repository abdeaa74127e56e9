package render

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/eksctl"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// KarpenterPath holds the NodePools and EC2NodeClasses of Karpenter pools;
// the checker reads karpenter-only pools back from there.
const KarpenterPath = "nodegroups/karpenter.yaml"

// Karpenter's API, its well-known labels, and ours.
const (
	NodePoolAPIVersion     = "karpenter.sh/v1"
	EC2NodeClassAPIVersion = "karpenter.k8s.aws/v1"
	EC2NodeClassGroup      = "karpenter.k8s.aws"
	LabelKarpenterCapacity = "karpenter.sh/capacity-type"
	LabelKarpenterNodePool = "karpenter.sh/nodepool"
	LabelInstanceType      = "node.kubernetes.io/instance-type"
	// AnnotationMaxNodes is the pool's max size. Karpenter bounds a pool by
	// resources, not nodes; the checker needs the node count.
	AnnotationMaxNodes = derive.Domain + "max-nodes"
	// DiscoveryTag selects the cluster's subnets and security groups, as
	// Karpenter's getting-started CloudFormation tags them.
	DiscoveryTag = "karpenter.sh/discovery"
)

type NodePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              NodePoolSpec `json:"spec"`
}

type NodePoolSpec struct {
	Template   NodeClaimTemplate   `json:"template"`
	Disruption Disruption          `json:"disruption"`
	Limits     corev1.ResourceList `json:"limits,omitempty"`
	Weight     int32               `json:"weight,omitempty"`
}

type NodeClaimTemplate struct {
	Metadata TemplateMetadata      `json:"metadata"`
	Spec     NodeClaimTemplateSpec `json:"spec"`
}

type TemplateMetadata struct {
	Labels map[string]string `json:"labels,omitempty"`
}

type NodeClaimTemplateSpec struct {
	Requirements []corev1.NodeSelectorRequirement `json:"requirements"`
	Taints       []corev1.Taint                   `json:"taints,omitempty"`
	NodeClassRef NodeClassRef                     `json:"nodeClassRef"`
}

type NodeClassRef struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	Name  string `json:"name"`
}

type Disruption struct {
	ConsolidationPolicy string   `json:"consolidationPolicy"`
	ConsolidateAfter    string   `json:"consolidateAfter"`
	Budgets             []Budget `json:"budgets,omitempty"`
}

type Budget struct {
	Nodes string `json:"nodes"`
}

type EC2NodeClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              EC2NodeClassSpec `json:"spec"`
}

type EC2NodeClassSpec struct {
	AMISelectorTerms           []AMISelectorTerm    `json:"amiSelectorTerms"`
	Role                       string               `json:"role"`
	SubnetSelectorTerms        []TagSelectorTerm    `json:"subnetSelectorTerms"`
	SecurityGroupSelectorTerms []TagSelectorTerm    `json:"securityGroupSelectorTerms"`
	BlockDeviceMappings        []BlockDeviceMapping `json:"blockDeviceMappings"`
}

type AMISelectorTerm struct {
	Alias string `json:"alias"`
}

type TagSelectorTerm struct {
	Tags map[string]string `json:"tags"`
}

type BlockDeviceMapping struct {
	DeviceName string `json:"deviceName"`
	EBS        EBS    `json:"ebs"`
}

type EBS struct {
	VolumeSize          string `json:"volumeSize"`
	VolumeType          string `json:"volumeType"`
	Encrypted           bool   `json:"encrypted"`
	DeleteOnTermination bool   `json:"deleteOnTermination"`
}

// Preference weights: Karpenter launches for a pending pod from the
// highest-weighted NodePool it fits. Spot first (cheaper, and only classes
// that tolerate spot can use it), and a dedicated pool before a shared one
// (the classes it is dedicated to prefer it, as their affinity says).
const (
	weightBase      = 10
	weightSpot      = 40
	weightDedicated = 20
)

func (r *renderer) karpenter() {
	var pools, classes []any
	seen := map[string]bool{}
	for _, p := range r.d.Pools {
		if !p.Spec.HasNodePool() {
			continue
		}
		nc := nodeClass(r.d.Spec.Cluster, p)
		if !seen[nc.Name] {
			seen[nc.Name] = true
			classes = append(classes, nc)
		}
		pools = append(pools, r.nodePool(p, nc.Name))
	}
	if len(pools) > 0 {
		r.emit(KarpenterPath, append(classes, pools...)...)
	}
}

func (r *renderer) nodePool(p derive.Pool, nodeClass string) *NodePool {
	capacity := spec.OnDemand
	weight := int32(weightBase)
	if p.Spec.Capacity == spec.Spot {
		capacity, weight = spec.Spot, weight+weightSpot
	}
	if len(p.Spec.DedicatedTo) > 0 {
		weight += weightDedicated
	}
	np := &NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: NodePoolAPIVersion, Kind: "NodePool"},
		ObjectMeta: meta(p.Name, "", nil),
		Spec: NodePoolSpec{
			Template: NodeClaimTemplate{
				Metadata: TemplateMetadata{Labels: p.Labels},
				Spec: NodeClaimTemplateSpec{
					Requirements: []corev1.NodeSelectorRequirement{
						{Key: LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: p.Spec.InstanceTypes},
						{Key: LabelKarpenterCapacity, Operator: corev1.NodeSelectorOpIn, Values: []string{capacity}},
						{Key: derive.LabelZone, Operator: corev1.NodeSelectorOpIn, Values: p.Zones},
					},
					Taints:       p.Taints,
					NodeClassRef: NodeClassRef{Group: EC2NodeClassGroup, Kind: "EC2NodeClass", Name: nodeClass},
				},
			},
			Disruption: r.disruption(p),
			Limits:     limits(p),
			Weight:     weight,
		},
	}
	np.Annotations = map[string]string{AnnotationMaxNodes: strconv.Itoa(int(p.Spec.Size.Max))}
	return np
}

// disruption lets Karpenter repack batch capacity, whose work checkpoints
// and requeues, and only retire empty nodes of serving pools, a few at a
// time, so that consolidation never takes replicas of a live endpoint down.
func (r *renderer) disruption(p derive.Pool) Disruption {
	if p.Spec.Capacity == spec.Spot || r.batchOnly(p) {
		return Disruption{ConsolidationPolicy: "WhenEmptyOrUnderutilized", ConsolidateAfter: "5m"}
	}
	return Disruption{ConsolidationPolicy: "WhenEmpty", ConsolidateAfter: "10m", Budgets: []Budget{{Nodes: "10%"}}}
}

// batchOnly reports whether the pool is dedicated to Job classes alone.
// Which shared pools a class lands on is known only after the checker runs.
func (r *renderer) batchOnly(p derive.Pool) bool {
	for _, cl := range p.Spec.DedicatedTo {
		if r.d.Spec.Classes[cl].Kind != "Job" {
			return false
		}
	}
	return len(p.Spec.DedicatedTo) > 0
}

// limits caps the pool at its max size of its largest instance type, per
// resource, so Karpenter never grows it beyond what the checker assumed.
func limits(p derive.Pool) corev1.ResourceList {
	var cpuMilli, memBytes, gpus int64
	for _, in := range p.Instances {
		c := in.Capacity()
		cpuMilli = max(cpuMilli, c.Cpu().MilliValue())
		memBytes = max(memBytes, c.Memory().Value())
		g := c[catalog.ResourceGPU]
		gpus = max(gpus, g.Value())
	}
	n := int64(p.Spec.Size.Max)
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
// same AMI family and volume share one, named after both.
func nodeClass(cl spec.Cluster, p derive.Pool) *EC2NodeClass {
	family := amiFamily(p)
	alias := "al2023"
	if family == eksctl.Bottlerocket {
		alias = "bottlerocket"
	}
	size := volumeSize(p)
	role := "KarpenterNodeRole-" + cl.Name
	if cl.Karpenter != nil && cl.Karpenter.Role != "" {
		role = cl.Karpenter.Role
	}
	discovery := []TagSelectorTerm{{Tags: map[string]string{DiscoveryTag: cl.Name}}}
	return &EC2NodeClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: EC2NodeClassAPIVersion, Kind: "EC2NodeClass"},
		ObjectMeta: meta(fmt.Sprintf("gpufleet-%s-%dgi", alias, size), "", nil),
		Spec: EC2NodeClassSpec{
			// The alias picks the NVIDIA variant on GPU instance types.
			AMISelectorTerms:           []AMISelectorTerm{{Alias: alias + "@latest"}},
			Role:                       role,
			SubnetSelectorTerms:        discovery,
			SecurityGroupSelectorTerms: discovery,
			BlockDeviceMappings:        blockDevices(family, size),
		},
	}
}

// blockDevices sizes the volume images and pods live on: the root on
// AL2023; on Bottlerocket its data volume, beside its small OS volume.
// Encrypted, as Karpenter's own defaults are.
func blockDevices(family string, size int32) []BlockDeviceMapping {
	ebs := func(gib int32) EBS {
		return EBS{VolumeSize: strconv.Itoa(int(gib)) + "Gi", VolumeType: "gp3", Encrypted: true, DeleteOnTermination: true}
	}
	if family == eksctl.Bottlerocket {
		return []BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: ebs(4)}, {DeviceName: "/dev/xvdb", EBS: ebs(size)}}
	}
	return []BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: ebs(size)}}
}
