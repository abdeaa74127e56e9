package render

import (
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// companions are the objects a class's example workload needs beside it,
// written after it in example.yaml: a StatefulSet's headless Service, a
// serving workload's PodDisruptionBudget. They belong to the workload, not
// to the Component: their name and selector pick out one workload, and a
// Component is shared by every workload of its class.
func companions(c *derive.Class) []any {
	var out []any
	meta := func() metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: c.Name, Labels: map[string]string{keys.LabelClass: c.Name, "app.kubernetes.io/name": c.Name}}
	}
	selector := map[string]string{keys.LabelClass: c.Name}
	if c.Spec.Kind == keys.KindStatefulSet {
		// The StatefulSet's serviceName: the headless Service that gives
		// each pod its stable DNS name (<pod>.<service>).
		out = append(out, &corev1.Service{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: meta(),
			Spec:       corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: selector},
		})
	}
	if c.MaxUnavailable != nil {
		mu := intstr.FromInt32(*c.MaxUnavailable)
		// AlwaysAllow: a replica that is not Ready serves nothing, so it
		// must not block a node's drain (Karpenter's expiry waits on it).
		always := policyv1.AlwaysAllow
		out = append(out, &policyv1.PodDisruptionBudget{
			TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
			ObjectMeta: meta(),
			Spec: policyv1.PodDisruptionBudgetSpec{
				MaxUnavailable:             &mu,
				Selector:                   &metav1.LabelSelector{MatchLabels: selector},
				UnhealthyPodEvictionPolicy: &always,
			},
		})
	}
	return out
}
