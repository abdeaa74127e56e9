// Package scaleup restates cluster-autoscaler's scale-up for AWS Auto
// Scaling groups (EKS managed node groups): which group it grows for
// pending pods, and by how many nodes. cluster-autoscaler cannot be run
// here (the module proxy refuses k8s.io/autoscaler/cluster-autoscaler), so
// every rule is restated from kubernetes/autoscaler at commit
// 35e8a280425c (tag cluster-autoscaler-1.36.1), each citing the file and
// function it restates. It is a restatement, not the component: e2e scales
// the managed groups by it, and kube-scheduler, which then places the
// pods, is the real one.
package scaleup

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The Auto Scaling group tags the AWS provider builds a template node from
// (cluster-autoscaler/cloudprovider/aws/aws_manager.go,
// extractLabelsFromAsg, extractTaintsFromAsg,
// extractAllocatableResourcesFromAsg).
const (
	TagLabel    = "k8s.io/cluster-autoscaler/node-template/label/"
	TagTaint    = "k8s.io/cluster-autoscaler/node-template/taint/"
	TagResource = "k8s.io/cluster-autoscaler/node-template/resources/"
)

// GPULabel is the AWS provider's GPU label
// (cloudprovider/aws/aws_cloud_provider.go, GPULabel), and ResourceGPU
// the resource its template credits an instance type's GPUs as
// (utils/gpu/gpu.go, ResourceNvidiaGPU).
const (
	GPULabel    = "k8s.amazonaws.com/accelerator"
	ResourceGPU = corev1.ResourceName("nvidia.com/gpu")
)

// InstanceType is the AWS provider's entry for an EC2 type
// (cloudprovider/aws/aws_instance_types.go, InstanceType).
type InstanceType struct {
	Name         string
	VCPU         int64
	MemoryMiB    int64
	GPU          int64
	Architecture string
}

// Group is one Auto Scaling group as cluster-autoscaler sees it.
type Group struct {
	Name string
	// Zones are the group's AvailabilityZones; the template takes the
	// first (aws_manager.go, getAsgTemplate).
	Zones []string
	Type  InstanceType
	// Tags are the Auto Scaling group's tags (eksctl's propagated tags).
	Tags map[string]string
	// Labels and Taints are the EKS managed node group's, which the
	// provider reads from DescribeNodegroup and joins over the tags'
	// (aws_manager.go, buildNodeFromTemplate).
	Labels map[string]string
	Taints []corev1.Taint
	// Min, Max and Size (the target size) of the group.
	Min, Max, Size int
	// Nodes are the group's registered nodes, and Devices how many DRA
	// devices each publishes in its ResourceSlices (0: none).
	Nodes   []*corev1.Node
	Devices map[string]int64
}

// Template is the node cluster-autoscaler would add to a group: Node, and
// the DRA devices it publishes.
type Template struct {
	Node    *corev1.Node
	Devices int64
	// FromNode tells it was built from a registered node, not the tags.
	FromNode bool
}

// TemplateFor restates processors/nodeinfosprovider/
// mixed_nodeinfos_processor.go, MixedTemplateNodeInfoProvider.Process: a
// group with a ready node is templated on that node, sanitized
// (simulator/node_info_utils.go, SanitizedTemplateNodeInfoFromNodeInfo),
// ResourceSlices and all; one with none on the cloud provider's template
// (AwsNodeGroup.TemplateNodeInfo), which carries no ResourceSlices
// (framework.NewNodeInfo(node, nil, ...)): from zero, no DRA device.
// gpuLabel is the provider's GPU label: a node unready for its GPUs is no
// template (Ready, below).
func TemplateFor(g *Group, gpuLabel string) Template {
	for _, n := range g.Nodes {
		if !Ready(n, gpuLabel) {
			continue
		}
		c := n.DeepCopy()
		c.Name = fmt.Sprintf("template-node-for-%s", g.Name)
		c.Labels[corev1.LabelHostname] = c.Name
		return Template{Node: c, Devices: g.Devices[n.Name], FromNode: true}
	}
	return Template{Node: FromTags(g)}
}

// FromTags restates cloudprovider/aws/aws_manager.go,
// buildNodeFromTemplate: 110 pods, the type's vCPUs, memory and GPUs as
// nvidia.com/gpu, then the resource tags over them; allocatable equal to
// capacity; the generic labels (buildGenericLabels), the tags' labels
// and the managed group's labels over those; the tags' taints and the
// managed group's.
func FromTags(g *Group) *corev1.Node {
	name := g.Name + "-asg-template"
	rl := corev1.ResourceList{
		corev1.ResourcePods:   *resource.NewQuantity(110, resource.DecimalSI),
		corev1.ResourceCPU:    *resource.NewQuantity(g.Type.VCPU, resource.DecimalSI),
		ResourceGPU:           *resource.NewQuantity(g.Type.GPU, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(g.Type.MemoryMiB*1024*1024, resource.DecimalSI),
	}
	labels := map[string]string{}
	var taints []corev1.Taint
	taintValue := regexp.MustCompile("(.*):(?:NoSchedule|NoExecute|PreferNoSchedule)")
	for _, k := range sortedKeys(g.Tags) {
		v := g.Tags[k]
		switch {
		case strings.HasPrefix(k, TagResource) && k != TagResource:
			if q, err := resource.ParseQuantity(v); err == nil {
				rl[corev1.ResourceName(strings.TrimPrefix(k, TagResource))] = q
			}
		case strings.HasPrefix(k, TagTaint) && k != TagTaint && taintValue.MatchString(v):
			if kv := strings.SplitN(v, ":", 2); len(kv) > 1 {
				taints = append(taints, corev1.Taint{Key: strings.TrimPrefix(k, TagTaint), Value: kv[0], Effect: corev1.TaintEffect(kv[1])})
			}
		}
	}
	zone := ""
	if len(g.Zones) > 0 {
		zone = g.Zones[0]
	}
	region := zone
	if zone != "" {
		region = zone[:len(zone)-1]
	}
	generic := map[string]string{
		corev1.LabelArchStable: g.Type.Architecture, corev1.LabelOSStable: "linux",
		corev1.LabelInstanceTypeStable: g.Type.Name, corev1.LabelTopologyRegion: region,
		corev1.LabelTopologyZone: zone, "topology.ebs.csi.aws.com/zone": zone, corev1.LabelHostname: name,
	}
	for k, v := range generic {
		labels[k] = v
	}
	for k, v := range g.Tags {
		if l := strings.TrimPrefix(k, TagLabel); l != k && l != "" {
			labels[l] = v
		}
	}
	for k, v := range g.Labels {
		labels[k] = v
	}
	taints = append(taints, g.Taints...)
	return &corev1.Node{
		ObjectMeta: metaNamed(name, labels),
		Spec:       corev1.NodeSpec{Taints: taints},
		Status:     corev1.NodeStatus{Capacity: rl, Allocatable: rl.DeepCopy()},
	}
}

// Ready restates processors/customresources/gpu_processor.go,
// FilterOutNodesWithUnreadyResources: a node that carries the GPU label
// but has no GPU allocatable (utils/gpu/gpu.go, NodeHasGpuAllocatable,
// whose GPUVendorResourceNames hold nvidia.com/gpu, never a MIG slice) is
// unready. Its gpuExposedViaDra exception needs a GpuConfig naming a DRA
// driver, which AWS's (GetNodeGpuConfig, utils/gpu/gpu.go
// GetNodeGPUFromCloudProvider) never does.
func Ready(n *corev1.Node, gpuLabel string) bool {
	if _, labelled := n.Labels[gpuLabel]; !labelled || gpuLabel == "" {
		return true
	}
	q, ok := n.Status.Allocatable[ResourceGPU]
	return ok && !q.IsZero()
}
