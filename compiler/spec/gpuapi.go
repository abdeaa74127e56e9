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

func orGPUAPI(own, cluster string) string {
	switch {
	case own != "":
		return own
	case cluster != "":
		return cluster
	}
	return GPUAPIDevicePlugin
}
