package nodeagents

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

const IDDevicePluginAllocate check.ID = "DevicePluginAllocate"

// The kubelet asks the device plugin to allocate each container's devices
// once kube-scheduler has bound the pod, and fails the pod if the plugin
// refuses. The NVIDIA device plugin (v0.18.0) refuses a container more
// than one MPS replica: its config loader forces
// sharing.mps.failRequestsGreaterThanOne, and its resource manager's
// ValidateRequest returns this error. A Deployment's pods are then made and
// rejected over and over; none runs. ladder/device-plugin holds this check to the
// plugin's own Allocate.
const (
	// ErrPluginRequestSize is the plugin's refusal (internal/rm/rm.go).
	ErrPluginRequestSize  = "invalid request: maximum request size for shared resources is 1; found %d"
	reasonPluginAllocate  = "class %s requests %d %s in container %s on pool %s, which shares each GPU as %d MPS replicas: kube-scheduler binds the pod, but the NVIDIA device plugin refuses the allocation (%q) and the kubelet rejects the pod (UnexpectedAdmissionError), so it never runs; request 1 per container, or share the pool by time-slicing"
	containerRequestLimit = 1
)

// DevicePluginAllocate finds the pools where a class's pods fit but the
// device plugin refuses to allocate what a container of theirs requests.
func DevicePluginAllocate(c *sched.Class, w *sched.Row, pools []sched.Pool) []check.Finding {
	name, n := largestGPURequest(c.Pod)
	if n <= containerRequestLimit {
		return nil
	}
	var out []check.Finding
	for k, cell := range w.Evaluated {
		p := &pools[w.At[k]]
		// Replicas are what the plugin limits: without them a container
		// may take whole GPUs, as many as it likes.
		if !cell.Fits || !p.MPS || p.Replicas <= 1 || p.HostDevicePlugin {
			continue
		}
		out = append(out, check.Finding{Severity: check.Error, Check: IDDevicePluginAllocate, Class: c.Name, Pool: p.Name,
			Message: fmt.Sprintf(reasonPluginAllocate, c.Name, n, keys.ResourceGPU, name, p.Name, p.Replicas, fmt.Sprintf(ErrPluginRequestSize, n))})
	}
	return out
}

// largestGPURequest is the container (init containers too, whose devices
// the kubelet allocates as well) that asks for the most nvidia.com/gpu,
// and how many. Extended resources are requested as limits.
func largestGPURequest(p *corev1.Pod) (string, int64) {
	name, most := "", int64(0)
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for _, ctr := range cs {
			q, ok := ctr.Resources.Limits[keys.ResourceGPU]
			if !ok {
				q, ok = ctr.Resources.Requests[keys.ResourceGPU]
			}
			if ok && q.Value() > most {
				name, most = ctr.Name, q.Value()
			}
		}
	}
	return name, most
}
