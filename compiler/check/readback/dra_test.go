package readback

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// podClaims reads only claims of the shape gpufleet writes, which the
// checker's allocation is proved for and which allocate without a search:
// one claim a pod, one exact-count request, no constraints or config.
func TestPodClaims(t *testing.T) {
	tpl := func(name string, reqs int, constraints bool) resourcev1.ResourceClaimTemplate {
		rct := resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: name}}
		for i := range reqs {
			rct.Spec.Spec.Devices.Requests = append(rct.Spec.Spec.Devices.Requests, resourcev1.DeviceRequest{Name: string(rune('a' + i)),
				Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu.nvidia.com", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 2}})
		}
		if constraints {
			rct.Spec.Spec.Devices.Constraints = []resourcev1.DeviceConstraint{{MatchAttribute: new(resourcev1.FullyQualifiedName("gpu.nvidia.com/productName"))}}
		}
		return rct
	}
	templates := map[string]resourcev1.ResourceClaimTemplate{"one": tpl("one", 1, false), "two": tpl("two", 2, false), "tied": tpl("tied", 1, true)}
	pod := func(names ...string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
		for i, n := range names {
			p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, corev1.PodResourceClaim{Name: string(rune('a' + i)), ResourceClaimTemplateName: new(n)})
		}
		return p
	}
	if c, err := podClaims(pod("one"), templates, nil); err != nil || c.Devices != 2 || len(c.Claims) != 1 {
		t.Errorf("one claim of 2 devices: %+v, %v", c, err)
	}
	if c, err := podClaims(pod(), templates, nil); err != nil || c != nil {
		t.Errorf("no claims: %+v, %v", c, err)
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{"two claims", pod("one", "one"), "the pod lists 2 claims"},
		{"two requests", pod("two"), "ResourceClaimTemplate two: want one request"},
		{"a constraint", pod("tied"), "ResourceClaimTemplate tied: want one request of an exact count of devices, with no constraints"},
		{"a missing template", pod("gone"), "names ResourceClaimTemplate gone, which the tree lacks"},
	} {
		if _, err := podClaims(tc.pod, templates, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}
