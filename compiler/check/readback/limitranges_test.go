package readback

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

func TestWithLimitRanges(t *testing.T) {
	q := resource.MustParse
	limits := func(ns, cpu, mem string) corev1.LimitRange {
		return corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "gpufleet", Namespace: ns}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{
			{Type: corev1.LimitTypeContainer, DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: q(cpu), corev1.ResourceMemory: q(mem)}},
			{Type: corev1.LimitTypePod, Max: corev1.ResourceList{"nvidia.com/gpu": q("8")}},
		}}}
	}
	objs := tree.Objects{
		"tenants/a/limitranges.yaml": {limits("a", "100m", "256Mi")},
		"tenants/b/limitranges.yaml": {ptr(limits("b", "250m", "128Mi"))},
	}
	tr := tree.Typed{Tree: tree.Tree{"tenants/a/limitranges.yaml": nil, "tenants/b/limitranges.yaml": nil}, Objects: objs}
	container := func(cpu string) corev1.Container {
		c := corev1.Container{Name: "c"}
		if cpu != "" {
			c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: q(cpu)}
		}
		return c
	}
	always := corev1.ContainerRestartPolicyAlways
	sidecar := container("")
	sidecar.RestartPolicy = &always
	for _, tc := range []struct {
		name     string
		tenants  map[string][]string // each class's tenants' namespaces
		pod      corev1.PodSpec
		cpu, mem string
	}{
		{"named requests stay", map[string][]string{"x": {"a"}},
			corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: q("1"), corev1.ResourceMemory: q("1Gi")}}}}}, "1", "1Gi"},
		{"a missing request gets the default", map[string][]string{"x": {"a"}},
			corev1.PodSpec{Containers: []corev1.Container{container("1")}}, "1", "256Mi"},
		{"a sidecar naming none adds the defaults", map[string][]string{"x": {"a"}},
			corev1.PodSpec{InitContainers: []corev1.Container{sidecar}, Containers: []corev1.Container{container("1")}}, "1100m", "512Mi"},
		{"several tenants: the largest default of each", map[string][]string{"x": {"a", "b"}},
			corev1.PodSpec{Containers: []corev1.Container{container("")}}, "250m", "256Mi"},
		{"no tenant runs it: as written", map[string][]string{"y": {"a"}},
			corev1.PodSpec{Containers: []corev1.Container{container("1")}}, "1", "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: tc.pod}
			cl := &sched.Cluster{Classes: []sched.Class{{Name: "x", Pod: pod, Info: sched.NewPodInfo(pod)}}}
			if err := WithLimitRanges(cl, tr, tc.tenants); err != nil {
				t.Fatal(err)
			}
			req := cl.Classes[0].Info.Request
			if cpu := req[corev1.ResourceCPU]; cpu.Cmp(q(tc.cpu)) != 0 {
				t.Errorf("cpu %s, want %s", cpu.String(), tc.cpu)
			}
			if mem := req[corev1.ResourceMemory]; mem.Cmp(q(tc.mem)) != 0 {
				t.Errorf("memory %s, want %s", mem.String(), tc.mem)
			}
			if cl.Classes[0].Info.Pod != cl.Classes[0].Pod {
				t.Error("the pod info is not the pod's")
			}
			if len(pod.Spec.Containers[0].Resources.Requests) != len(tc.pod.Containers[0].Resources.Requests) {
				t.Error("the class's own pod was changed")
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
