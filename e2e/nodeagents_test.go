package e2e

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// TestVPCCNIChart holds the record's default for aws-node to the pod the
// real aws-vpc-cni chart renders: its requests as the scheduler counts
// them (the largest init container's, or the containers' sum), and
// tolerations that let it onto every node.
func TestVPCCNIChart(t *testing.T) {
	objs, err := renderVPCCNI("v1.35.4")
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, o := range objs {
		if o.GetKind() != "DaemonSet" || o.GetName() != vpcCNIRelease {
			continue
		}
		found = true
		var ds appsv1.DaemonSet
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &ds); err != nil {
			t.Fatal(err)
		}
		pod := &corev1.Pod{Spec: ds.Spec.Template.Spec}
		got := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
		want := corev1.ResourceList{}
		for r, q := range map[corev1.ResourceName]spec.Quantity{corev1.ResourceCPU: aws.NodeAgents[vpcCNIRelease].CPU, corev1.ResourceMemory: aws.NodeAgents[vpcCNIRelease].Memory} {
			if q != "" {
				want[r] = resource.MustParse(string(q))
			}
		}
		if !equality.Semantic.DeepEqual(got, want) {
			t.Errorf("the chart's aws-node pod requests %v; the record's default says %v", got, want)
		}
		tols := ds.Spec.Template.Spec.Tolerations
		if len(tols) != 1 || tols[0].Operator != corev1.TolerationOpExists || tols[0].Key != "" || tols[0].Effect != "" {
			t.Errorf("the chart's aws-node pod tolerates %v, not every taint", tols)
		}
	}
	if !found {
		t.Fatalf("the chart renders no %s DaemonSet", vpcCNIRelease)
	}
}
