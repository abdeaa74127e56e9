package readback

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
)

// bridgeClaims is the claim kube-scheduler v1.36 makes for a pod that
// requests an extended resource a DeviceClass of the cluster names
// (DRAExtendedResource, beta and on: pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go):
// for each container that requests it, a request "container-<i>-request-<j>"
// (i the container's index after the init containers, j the resource's
// among the container's requests sorted by name) of that many devices of
// the class, ExactCount (createResourceRequestAndMappings). The classes
// are the driver chart's, where the tree installs it, and the tree's own;
// of two naming one resource the scheduler's extended-resource cache keeps
// the newest, and of equally new ones the first by name
// (k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache):
// the tree's objects carry no creation time, so the first by name. A pod
// with claims of its own asks the bridge nothing here: gpufleet writes
// either, never both. Nil where no class maps what the pod requests.
func bridgeClaims(pod *corev1.Pod, info *sched.PodInfo, classes []*resourcev1.DeviceClass) *sched.Claims {
	if info.Claims.Asks() || len(classes) == 0 {
		return nil
	}
	for _, name := range slices.Sorted(func(yield func(corev1.ResourceName) bool) {
		for r, q := range info.Request {
			if !q.IsZero() && !yield(r) {
				return
			}
		}
	}) {
		class := mappedClass(name, classes)
		if class == nil {
			continue
		}
		claim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: pod.Name + "-extended-resources"}}
		out := &sched.Claims{Classes: classes, Extended: name, Claims: []*resourcev1.ResourceClaim{claim}}
		for i, c := range pod.Spec.Containers {
			q, ok := c.Resources.Requests[name]
			n, exact := q.AsInt64()
			if !ok || !exact || n == 0 {
				continue
			}
			keys := slices.Sorted(func(yield func(corev1.ResourceName) bool) {
				for r := range c.Resources.Requests {
					if !yield(r) {
						return
					}
				}
			})
			req := resourcev1.DeviceRequest{
				Name:    fmt.Sprintf("container-%d-request-%d", len(pod.Spec.InitContainers)+i, slices.Index(keys, name)),
				Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: class.Name, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: n},
			}
			claim.Spec.Devices.Requests = append(claim.Spec.Devices.Requests, req)
			out.Devices += n
		}
		if out.Devices == 0 {
			return nil
		}
		return out
	}
	return nil
}

// mappedClass is the DeviceClass kube-scheduler resolves the extended
// resource to, nil for none.
func mappedClass(name corev1.ResourceName, classes []*resourcev1.DeviceClass) *resourcev1.DeviceClass {
	var out *resourcev1.DeviceClass
	for _, c := range classes {
		if c.Spec.ExtendedResourceName != nil && corev1.ResourceName(*c.Spec.ExtendedResourceName) == name && (out == nil || c.Name < out.Name) {
			out = c
		}
	}
	return out
}

// bridgeClasses are the DeviceClasses of a cluster that runs the tree: the
// driver chart's where the tree installs it, and the tree's own.
func bridgeClasses(draValues bool, tree []*resourcev1.DeviceClass) []*resourcev1.DeviceClass {
	if !draValues {
		return tree
	}
	return append(dradriver.DeviceClasses(), tree...)
}
