package readback

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
)

// The claim kube-scheduler makes for a pod's nvidia.com/gpu where the
// driver chart's DeviceClass names it (createResourceRequestAndMappings):
// one request per container that asks, named by the container's index
// after the init containers and the resource's among its sorted requests;
// none without the chart, or for a resource no class names.
func TestBridgeClaims(t *testing.T) {
	ctr := func(name string, rl corev1.ResourceList) corev1.Container {
		return corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: rl}}
	}
	gpu := func(n string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), keys.ResourceGPU: resource.MustParse(n)}
	}
	for _, tc := range []struct {
		name  string
		pod   corev1.PodSpec
		chart bool
		want  []string // request name=count
	}{
		{"one container", corev1.PodSpec{Containers: []corev1.Container{ctr("main", gpu("2"))}}, true, []string{"container-0-request-1=2"}},
		{"after an init container, a sidecar asking none", corev1.PodSpec{InitContainers: []corev1.Container{ctr("init", nil)}, Containers: []corev1.Container{ctr("side", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}), ctr("main", gpu("1"))}}, true, []string{"container-2-request-1=1"}},
		{"no chart, no class", corev1.PodSpec{Containers: []corev1.Container{ctr("main", gpu("2"))}}, false, nil},
		{"MIG slices: no class names them", corev1.PodSpec{Containers: []corev1.Container{ctr("main", corev1.ResourceList{"nvidia.com/mig-1g.10gb": resource.MustParse("1")})}}, true, nil},
	} {
		pod := &corev1.Pod{Spec: tc.pod}
		pod.Name = "p"
		got := bridgeClaims(pod, sched.NewPodInfo(pod), bridgeClasses(tc.chart, nil))
		var reqs []string
		if got != nil {
			for _, r := range got.Claims[0].Spec.Devices.Requests {
				if r.Exactly.DeviceClassName != dradriver.DeviceClassGPU {
					t.Errorf("%s: request %s of class %s", tc.name, r.Name, r.Exactly.DeviceClassName)
				}
				reqs = append(reqs, r.Name+"="+resource.NewQuantity(r.Exactly.Count, resource.DecimalSI).String())
			}
			if got.Extended != keys.ResourceGPU {
				t.Errorf("%s: extended %q", tc.name, got.Extended)
			}
		}
		if len(reqs) != len(tc.want) || len(reqs) > 0 && reqs[0] != tc.want[0] {
			t.Errorf("%s: requests %v, want %v", tc.name, reqs, tc.want)
		}
	}
}
