package derive

// Label and taint keys gpufleet owns. Pools may not set them by hand.
const (
	Domain = "gpufleet.dev/"

	LabelPool       = Domain + "pool"
	LabelGPUProduct = Domain + "gpu-product"
	LabelGPUCount   = Domain + "gpu-count"
	LabelGPUMemory  = Domain + "gpu-memory-gib"
	LabelCapacity   = Domain + "capacity-type"
	LabelDedicated  = Domain + "dedicated"
	LabelClass      = Domain + "class"
	LabelTenant     = Domain + "tenant"
	LabelManagedBy  = "app.kubernetes.io/managed-by"
	ManagedByValue  = "gpufleet"
	TaintGPU        = "nvidia.com/gpu"
	TaintSpot       = Domain + "spot"
	TaintDedicated  = Domain + "dedicated"
	ResourceGPU     = "nvidia.com/gpu"
	LabelHostname   = "kubernetes.io/hostname"
	LabelZone       = "topology.kubernetes.io/zone"
)

// Reserved reports whether a label or taint key belongs to gpufleet.
func Reserved(key string) bool {
	return len(key) >= len(Domain) && key[:len(Domain)] == Domain || key == TaintGPU
}
