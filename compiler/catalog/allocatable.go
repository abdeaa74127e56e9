package catalog

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/keys"
)

// ResourceGPU is the NVIDIA device plugin's extended resource.
const ResourceGPU corev1.ResourceName = keys.ResourceGPU

// EvictionMemoryMi is the kubelet's default hard eviction threshold
// (memory.available<100Mi), which allocatable also excludes.
const EvictionMemoryMi = 100

// MemoryMi is the memory a node of this type is credited, in MiB: the
// nominal figure less the VM's share.
func (in Instance) MemoryMi() int64 {
	return int64(in.MemoryGiB*1024) - in.Reserved.VMMemoryMi
}

// Capacity is what the kubelet reports for a node of this type, memory
// less the VM's share.
func (in Instance) Capacity() corev1.ResourceList {
	rl := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(in.VCPU*1000, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(in.MemoryMi()*1024*1024, resource.BinarySI),
		corev1.ResourcePods:   *resource.NewQuantity(in.MaxPods, resource.DecimalSI),
	}
	if in.GPU != nil {
		rl[ResourceGPU] = *resource.NewQuantity(in.GPU.Count, resource.DecimalSI)
	}
	return rl
}

// Allocatable is capacity minus the node image's kube-reserved and the
// eviction threshold.
func (in Instance) Allocatable() corev1.ResourceList {
	rl := in.Capacity()
	cpu := rl[corev1.ResourceCPU]
	cpu.Sub(*resource.NewMilliQuantity(in.Reserved.CPUMilli, resource.DecimalSI))
	rl[corev1.ResourceCPU] = cpu
	mem := rl[corev1.ResourceMemory]
	mem.Sub(*resource.NewQuantity((in.Reserved.MemoryMi+EvictionMemoryMi)*1024*1024, resource.BinarySI))
	rl[corev1.ResourceMemory] = mem
	return rl
}
