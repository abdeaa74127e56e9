package catalog

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/keys"
)

// ResourceGPU is the NVIDIA device plugin's extended resource.
const ResourceGPU corev1.ResourceName = keys.ResourceGPU

// EvictionMemoryMi is the kubelet's default hard eviction threshold
// (memory.available<100Mi), which allocatable also excludes.
const EvictionMemoryMi = 100

// VMMemoryOverheadPercent is Karpenter's AWS provider's default
// (VM_MEMORY_OVERHEAD_PERCENT, karpenter-provider-aws v1.15.1): a node
// reports less memory than EC2's nominal figure, and Karpenter launches
// only types whose memory less this share holds the pods.
const VMMemoryOverheadPercent = 0.075

// MemoryMi is the memory a node of this type is credited, in MiB: the
// nominal figure less the VM overhead, rounded as Karpenter's
// instancetype.memory rounds it (the overhead up to a whole MiB).
func (in Instance) MemoryMi() int64 {
	mi := int64(in.MemoryGiB * 1024)
	return mi - int64(math.Ceil(float64(mi)*VMMemoryOverheadPercent))
}

// Capacity is what the kubelet reports for a node of this type, memory
// less the VM overhead.
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

// Allocatable is capacity minus the EKS AMI's kube-reserved and the
// eviction threshold.
func (in Instance) Allocatable() corev1.ResourceList {
	rl := in.Capacity()
	cpu := rl[corev1.ResourceCPU]
	cpu.Sub(*resource.NewMilliQuantity(ReservedCPUMilli(in.VCPU), resource.DecimalSI))
	rl[corev1.ResourceCPU] = cpu
	mem := rl[corev1.ResourceMemory]
	mem.Sub(*resource.NewQuantity((ReservedMemoryMi(in.MaxPods)+EvictionMemoryMi)*1024*1024, resource.BinarySI))
	rl[corev1.ResourceMemory] = mem
	return rl
}

// ReservedCPUMilli is the EKS AMI's CPU reservation: 6% of the first core,
// 1% of the second, 0.5% of the next two and 0.25% of the rest. It is
// computed in tenths of a millicore, to keep 0.25% exact, in closed form:
// a spec may override vcpu.
func ReservedCPUMilli(vcpu int64) int64 {
	if vcpu < 1 {
		return 0
	}
	tenths := int64(600)
	if vcpu >= 2 {
		tenths += 100
	}
	tenths += 50 * min(max(vcpu-2, 0), 2)
	tenths += 25 * max(vcpu-4, 0)
	return tenths / 10
}

// ReservedMemoryMi is the EKS AMI's memory reservation: 255 MiB plus
// 11 MiB per pod the node may run.
func ReservedMemoryMi(maxPods int64) int64 { return 255 + 11*maxPods }
