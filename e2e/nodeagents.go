package e2e

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/gpufleet/gpufleet/compiler/check/readback"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// vpcCNIRelease is the aws-node DaemonSet's release, as EKS names it.
const vpcCNIRelease = "aws-node"

// renderVPCCNI is `helm template` of the Amazon VPC CNI's chart from its
// pinned module, with its default values: the aws-node DaemonSet EKS runs
// on every node, with the requests its chart sets.
func renderVPCCNI(kubeVersion string) ([]*unstructured.Unstructured, error) {
	dir, err := upstream.VPCCNI.File(upstream.VPCCNIChart)
	if err != nil {
		return nil, err
	}
	ch, err := loader.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("load chart: %w", err)
	}
	return helmTemplate(ch, chartutil.Values{}, vpcCNIRelease, "kube-system", kubeVersion)
}

// nodeAgents are the DaemonSets on every node: aws-node from the real
// chart, and those of the tree's record that no served module carries
// (kube-proxy, whose request is the EKS add-on's, and any the spec lists),
// each a pause pod with the recorded requests that tolerates every taint,
// as EKS's kube-proxy does. The checker takes the record off every node;
// here the pods are bound there.
func nodeAgents(t tree.Tree, kubeVersion string) ([]*unstructured.Unstructured, error) {
	objs, err := renderVPCCNI(kubeVersion)
	if err != nil {
		return nil, err
	}
	every, err := readback.EveryNode(t)
	if err != nil {
		return nil, err
	}
	for _, ds := range every {
		if ds.Name == vpcCNIRelease {
			continue // the chart's, above
		}
		labels := map[string]string{"k8s-app": ds.Name}
		d := &appsv1.DaemonSet{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
			ObjectMeta: metav1.ObjectMeta{Name: ds.Name, Namespace: "kube-system"},
			Spec: appsv1.DaemonSetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{
						PriorityClassName: "system-node-critical",
						Tolerations:       []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
						Containers: []corev1.Container{{
							Name: ds.Name, Image: "registry.k8s.io/pause:3.10",
							Resources: corev1.ResourceRequirements{Requests: ds.Requests},
						}},
					},
				},
			},
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
		if err != nil {
			return nil, err
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
	return objs, nil
}
