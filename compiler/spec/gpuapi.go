package spec

// The two ways a Kubernetes node offers GPUs: the NVIDIA device plugin's
// extended resource (nvidia.com/gpu), or Dynamic Resource Allocation, the
// NVIDIA DRA driver publishing each GPU as a device in a ResourceSlice
// that pods claim through ResourceClaims (resource.k8s.io/v1, GA in 1.34).
const (
	GPUAPIDevicePlugin = "device-plugin"
	GPUAPIDRA          = "dra"
)

// PoolGPUAPI is how the pool's nodes offer GPUs.
func (f *Fleet) PoolGPUAPI(p Pool) string {
	return orGPUAPI(p.GPUAPI, f.Cluster.GPUAPI)
}

// ClassGPUAPI is how the class's pods ask for GPUs; "" for a class with none.
func (f *Fleet) ClassGPUAPI(c Class) string {
	if c.GPU == nil {
		return ""
	}
	return orGPUAPI(c.GPU.API, f.Cluster.GPUAPI)
}

// UsesDRA reports whether any pool offers GPUs through DRA.
func (f *Fleet) UsesDRA() bool {
	for _, p := range f.Pools {
		if f.PoolGPUAPI(p) == GPUAPIDRA {
			return true
		}
	}
	return false
}

// Bridged reports whether the pool takes pods asking for nvidia.com/gpu
// through the DRA extended-resource bridge: a gpuAPI "dra" pool that says
// extendedResourceBridge.
func (f *Fleet) Bridged(p Pool) bool {
	return p.ExtendedResourceBridge && f.PoolGPUAPI(p) == GPUAPIDRA
}

// Bridges reports whether any pool is Bridged.
func (f *Fleet) Bridges() bool {
	for _, p := range f.Pools {
		if f.Bridged(p) {
			return true
		}
	}
	return false
}

func orGPUAPI(own, cluster string) string {
	switch {
	case own != "":
		return own
	case cluster != "":
		return cluster
	}
	return GPUAPIDevicePlugin
}
