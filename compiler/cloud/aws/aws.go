// Package aws is AWS behind the cloud seam (compiler/cloud): EC2's
// instance types and prices, EKS's rules for a cluster's names and sizes,
// the DaemonSets EKS runs on every node, and the labels, taints and
// resources of AWS's node groups and device plugins. Only this package,
// the node groups AWS launches (compiler/nodegroup/eks and /karpenter) and
// the wire formats of AWS's tools name these facts; TestCloudFactsBehindSeam
// holds the rest of compiler/ to it.
package aws

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/eksctl"
)

// Keys that AWS's components set or read.
const (
	// ResourceEFA is the AWS EFA device plugin's resource: Elastic Fabric
	// Adapter interfaces.
	ResourceEFA = "vpc.amazonaws.com/efa"
	// TaintEFA keeps EFA pools for the classes that request EFA. It is the
	// one taint, beside CriticalAddonsOnly, that eksctl's EFA device plugin
	// tolerates, so EFA pools carry it instead of nvidia.com/gpu.
	TaintEFA = "aws.amazon.com/efa"
	// LabelAccelerator is cluster-autoscaler's AWS provider's GPU label.
	LabelAccelerator = "k8s.amazonaws.com/accelerator"
	// The node group a node was launched by, as eksctl and EKS label it
	// (gpufleet names each managed node group after its pool).
	LabelEksctlNodeGroup = "alpha.eksctl.io/nodegroup-name"
	LabelEKSNodeGroup    = "eks.amazonaws.com/nodegroup"
	// karpenterDomain is Karpenter's AWS provider's label and taint domain.
	karpenterDomain = "karpenter.k8s.aws"
)

// Cloud is AWS, selected by the spec's cluster.provider "eks".
type Cloud struct{}

// Provider implements cloud.Cloud.
func (Cloud) Provider() string { return "eks" }

// Catalog implements cloud.Cloud.
func (Cloud) Catalog(extra map[string]spec.InstanceType) catalog.Catalog { return Catalog(extra) }

// Prices implements cloud.Cloud: karpenter-provider-aws's static
// on-demand prices (zz_generated.prices.go).
func (Cloud) Prices() *catalog.PriceTable { return &prices }

var prices = catalog.PriceTable{Source: priceSource, Dates: priceDates, OnDemandUSD: onDemandUSD}

// NodeAgents are EKS's own DaemonSets, on every node of an EKS cluster:
// aws-node (the VPC CNI: 25m for its CNI container and 25m for the network
// policy agent its chart enables by default, as e2e renders the chart from
// github.com/aws/amazon-vpc-cni-k8s v1.20.4 and holds this to it) and
// kube-proxy (the EKS add-on's request, which no served module carries).
var NodeAgents = map[string]spec.Resources{
	"aws-node":   {CPU: "50m"},
	"kube-proxy": {CPU: "100m"},
}

// NodeAgents implements cloud.Cloud. The map is shared: do not change it.
func (Cloud) NodeAgents() map[string]spec.Resources { return NodeAgents }

// acceleratorNames are cluster-autoscaler's AWS GPU types for the products
// it lists; others are spelled the same way.
var acceleratorNames = map[string]string{
	"T4": "nvidia-tesla-t4", "A100": "nvidia-tesla-a100", "V100": "nvidia-tesla-v100",
	"A10G": "nvidia-a10g", "L4": "nvidia-l4", "L40S": "nvidia-l40s",
}

// NodeLabels implements cloud.Cloud: on GPU pools, cluster-autoscaler's
// k8s.amazonaws.com/accelerator. A node with that label whose GPUs the
// device plugin has not advertised yet is one cluster-autoscaler waits
// for, rather than a node that cannot hold the pending GPU pod (for which
// it would scale up again).
func (Cloud) NodeLabels(gpu *catalog.GPU) map[string]string {
	if gpu == nil {
		return nil
	}
	n, ok := acceleratorNames[gpu.Product]
	if !ok {
		n = "nvidia-" + strings.ToLower(gpu.Product)
	}
	return map[string]string{LabelAccelerator: n}
}

// Fabric implements cloud.Cloud: EFA.
func (Cloud) Fabric() (corev1.ResourceName, string) { return ResourceEFA, TaintEFA }

// AMIFamily is a pool's node image family, AmazonLinux2023 unless the pool
// names one.
func AMIFamily(p spec.Pool) string {
	if p.AMIFamily == "" {
		return eksctl.AmazonLinux2023
	}
	return p.AMIFamily
}

// HostDevicePlugin implements cloud.Cloud: Bottlerocket's NVIDIA variants
// run the device plugin on the host.
func (Cloud) HostDevicePlugin(p spec.Pool) bool { return AMIFamily(p) == eksctl.Bottlerocket }

// GroupLabels implements cloud.Cloud: eksctl's and EKS's.
func (Cloud) GroupLabels() []string { return []string{LabelEksctlNodeGroup, LabelEKSNodeGroup} }

// ManagedTaints implements cloud.Cloud: Karpenter's AWS provider's.
func (Cloud) ManagedTaints() []string { return []string{karpenterDomain + "/"} }

// SpotNoticeSeconds is the notice AWS gives before it reclaims a spot
// instance: two minutes.
const SpotNoticeSeconds = 120

// AutoscalerGPULabel implements cloud.Cloud: cluster-autoscaler's AWS
// provider's GPULabel (kubernetes/autoscaler cluster-autoscaler/
// cloudprovider/aws/aws_cloud_provider.go).
func (Cloud) AutoscalerGPULabel() string { return LabelAccelerator }

// SpotNoticeSeconds implements cloud.Cloud.
func (Cloud) SpotNoticeSeconds() int64 { return SpotNoticeSeconds }

// NetworkLayerLabel is the label of network layer n (1 the top) that the
// AWS cloud controller manager sets on nodes of types EC2 topology
// describes.
func (Cloud) NetworkLayerLabel(n int) string { return LabelNetworkNodeLayer + strconv.Itoa(n) }

// KarpenterRole is the IAM role of Karpenter's nodes: the spec's, or
// KarpenterNodeRole-<cluster>, the Karpenter getting-started convention.
func KarpenterRole(c spec.Cluster) string {
	if c.Karpenter != nil && c.Karpenter.Role != "" {
		return c.Karpenter.Role
	}
	return "KarpenterNodeRole-" + c.Name
}
