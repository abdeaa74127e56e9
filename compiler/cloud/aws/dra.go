package aws

import (
	"strconv"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/catalog"
)

// DRADriver is the NVIDIA DRA driver's name: the ResourceSlices' driver
// and the domain of its devices' unqualified attributes.
const DRADriver = "gpu.nvidia.com"

// draGPU is one GPU model as the NVIDIA DRA driver's kubelet plugin
// publishes it: NVML's product name, architecture and CUDA compute
// capability, and its total memory, which is less than the marketed size
// gpufleet's catalog labels nodes with (an A10G's "24 GiB" is 23028Mi).
type draGPU struct {
	productName, architecture, computeCapability string
	memory                                       string
}

// draGPUs are the driver's devices by catalog product and memory. The
// figures are those karpenter-provider-aws v1.15.1 scraped from the driver
// on each EC2 type (pkg/providers/drametadata/zz_generated_gpu_metadata.go,
// GPUMetadataByInstanceType); ladder/karpenter holds every built-in type's
// devices to that table.
var draGPUs = map[string]map[int64]draGPU{
	t4:   {16: {"Tesla T4", "Turing", "7.5.0", "15Gi"}},
	a10g: {24: {"NVIDIA A10G", "Ampere", "8.6.0", "23028Mi"}},
	l4:   {24: {"NVIDIA L4", "Ada Lovelace", "8.9.0", "23034Mi"}},
	l40s: {48: {"NVIDIA L40S", "Ada Lovelace", "8.9.0", "46068Mi"}},
	a100: {
		40: {"NVIDIA A100-SXM4-40GB", "Ampere", "8.0.0", "40320Mi"},
		80: {"NVIDIA A100-SXM4-80GB", "Ampere", "8.0.0", "80Gi"},
	},
	h100: {80: {"NVIDIA H100 80GB HBM3", "Hopper", "9.0.0", "81152Mi"}},
	h200: {141: {"NVIDIA H200", "Hopper", "9.0.0", "140Gi"}},
	b200: {180: {"NVIDIA B200", "Blackwell", "10.0.0", "182784Mi"}},
	b300: {268: {"NVIDIA B300 SXM6 AC", "Blackwell", "10.3.0", "268Gi"}},
}

// DRADevices are DRADevices, for the cloud seam.
func (Cloud) DRADevices(in catalog.Instance) ([]resourcev1.Device, bool) { return DRADevices(in) }

// DRADevices are the whole-GPU devices the NVIDIA DRA driver publishes in
// the ResourceSlice of a node of the type, named as it names them
// ("gpu-0"), with the attributes and capacity a DeviceClass or a claim's
// CEL selector reads; false for a type with no GPU or a GPU model the
// table lacks. Attributes that differ per node (uuid, PCI bus ID, PCIe
// root, driver versions) are left out.
func DRADevices(in catalog.Instance) ([]resourcev1.Device, bool) {
	if in.GPU == nil || in.GPU.Count == 0 {
		return nil, false
	}
	g, ok := draGPUs[in.GPU.Product][in.GPU.MemoryGiB]
	if !ok {
		return nil, false
	}
	out := make([]resourcev1.Device, in.GPU.Count)
	for i := range out {
		out[i] = resourcev1.Device{
			Name: "gpu-" + strconv.Itoa(i),
			Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
				"type":                  {StringValue: new("gpu")},
				"brand":                 {StringValue: new("Nvidia")},
				"productName":           {StringValue: new(g.productName)},
				"architecture":          {StringValue: new(g.architecture)},
				"cudaComputeCapability": {VersionValue: new(g.computeCapability)},
			},
			Capacity: map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{
				"memory": {Value: resource.MustParse(g.memory)},
			},
		}
	}
	return out, true
}
