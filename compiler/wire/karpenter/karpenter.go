// Package karpenter holds the part of Karpenter's v1 API that gpufleet
// writes (NodePool, EC2NodeClass). The tests validate it against the CRDs of
// the pinned Karpenter releases (third_party/karpenter).
package karpenter

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Karpenter's API groups and its well-known labels.
const (
	NodePoolAPIVersion     = "karpenter.sh/v1"
	EC2NodeClassAPIVersion = "karpenter.k8s.aws/v1"
	EC2NodeClassGroup      = "karpenter.k8s.aws"
	LabelKarpenterCapacity = "karpenter.sh/capacity-type"
	LabelKarpenterNodePool = "karpenter.sh/nodepool"
	// AnnotationMaxNodes is the pool's max size. Karpenter bounds a pool by
	// resources, not nodes; the checker needs the node count.
	// DiscoveryTag selects the cluster's subnets and security groups, as
	// Karpenter's getting-started CloudFormation tags them.
	DiscoveryTag = "karpenter.sh/discovery"
)

// NodePool is karpenter.sh/v1 NodePool, the part gpufleet writes.
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
	// ExpireAfter is how long a node lives: a duration in h, m and s, or
	// "Never".
	ExpireAfter string `json:"expireAfter,omitempty"`
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

// EC2NodeClass is karpenter.k8s.aws/v1 EC2NodeClass, the part gpufleet
// writes.
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
	// CapacityReservationSelectorTerms select the reservations the
	// class's nodes launch into (ORed); a NodePool launches into them
	// with capacity type "reserved".
	CapacityReservationSelectorTerms []CapacityReservationSelectorTerm `json:"capacityReservationSelectorTerms,omitempty"`
}

// CapacityReservationSelectorTerm selects reservations by ID or by tags
// (karpenter-provider-aws v1.15.1 pkg/apis/v1/ec2nodeclass.go).
type CapacityReservationSelectorTerm struct {
	ID   string            `json:"id,omitempty"`
	Tags map[string]string `json:"tags,omitempty"`
}

// Karpenter's capacity types, as karpenter.sh/capacity-type spells them.
const (
	CapacityReserved = "reserved"
	CapacityOnDemand = "on-demand"
	CapacitySpot     = "spot"
)

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

// ValuesPath holds what the fleet needs of the values of Karpenter's own
// chart (karpenter-provider-aws charts/karpenter), to merge into yours.
const ValuesPath = "nodegroups/karpenter-values.yaml"

// Values is the part of the Karpenter chart's values gpufleet writes.
type Values struct {
	Settings Settings `json:"settings"`
}

// Settings are the chart's settings; its _helpers.tpl karpenter.dra
// resolves the DRA ones into DRANVIDIAGPU (in AWS_FEATURE_GATES) and
// IGNORE_DRA_REQUESTS.
type Settings struct {
	EnableDRA         *bool           `json:"enableDRA,omitempty"`
	IgnoreDRARequests *bool           `json:"ignoreDRARequests,omitempty"`
	AWSFeatureGates   AWSFeatureGates `json:"awsFeatureGates"`
}

type AWSFeatureGates struct {
	DRANVIDIAGPU *bool `json:"draNVIDIAGPU,omitempty"`
}
