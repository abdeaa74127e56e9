package verify_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/verify"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// A custom GPU product becomes a node label value and an affinity value;
// one the API server would reject is reported at the pool.
func TestCustomProductMustBeALabelValue(t *testing.T) {
	spec := `package fleet
cluster: {provider: "eks", name: "c", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
instanceTypes: "x1.big": {vcpu: 8, memoryGiB: 64, maxPods: 58, gpu: {count: 1, product: "H100 NVL", memoryGiB: 94}}
priorities: p: value: 1
pools: g: {instanceTypes: ["x1.big"], size: {min: 0, max: 2}}
classes: c: {priority: "p", gpu: {count: 1}}
tenants: t: {namespaces: ["t"], classes: ["c"]}
`
	f := testfleet.Write(t, spec)
	_, err := compiler.Compile([]string{f})
	if err == nil || !strings.Contains(err.Error(), `fleet.cue:5:8: pools.g: derived object is invalid: metadata.labels: Invalid value: "H100 NVL"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestPodTemplate(t *testing.T) {
	one, two := resource.MustParse("1"), resource.MustParse("2")
	for _, tc := range []struct {
		name string
		tpl  corev1.PodTemplateSpec
		want string
	}{
		{"ok", corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"nvidia.com/gpu": one}, Limits: corev1.ResourceList{"nvidia.com/gpu": one}}}}}}, ""},
		{"gpu request differs from limit", corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"nvidia.com/gpu": one}, Limits: corev1.ResourceList{"nvidia.com/gpu": two}}}}}}, "GPU request must equal limit 2"},
		{"bad nodeSelector key", corev1.PodTemplateSpec{Spec: corev1.PodSpec{NodeSelector: map[string]string{"a b": "c"}}}, "nodeSelector"},
		{"bad affinity value", corev1.PodTemplateSpec{Spec: corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "k", Operator: corev1.NodeSelectorOpIn, Values: []string{"has space"}}}}}}}}}}, "values[0]"},
	} {
		errs := verify.PodTemplate(&tc.tpl, field.NewPath("t"))
		switch {
		case tc.want == "" && len(errs) > 0:
			t.Errorf("%s: unexpected %v", tc.name, errs)
		case tc.want != "" && !strings.Contains(errs.ToAggregate().Error(), tc.want):
			t.Errorf("%s: got %v, want %q", tc.name, errs, tc.want)
		}
	}
}
