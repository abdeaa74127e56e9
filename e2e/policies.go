package e2e

import (
	"context"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// hostile asks the real kube-apiserver to create, in the first namespace
// of every tenant, pods its admission policies must refuse (issue 48): a
// CPU pod of no class tolerating a tainted pool's taints and selecting its
// nodes, and a pod of each of its classes at a PriorityClass its class
// does not have. Each must be refused by a ValidatingAdmissionPolicy, with
// the policy's message naming the tenant; the classes' own workloads,
// which every fleet's run makes afterwards, are admitted (fr.class).
func (fr *fleetRun) hostile() {
	t := fr.t
	cl := fr.cp.Client.CoreV1()
	var tainted []corev1.Taint
	var pool map[string]string
	for _, p := range fr.res.Fleet.Pools {
		if len(p.Taints) > 0 {
			tainted, pool = p.Taints, p.Labels
			break
		}
	}
	try := func(ns, what string, pod *corev1.Pod) {
		pod.Name, pod.Namespace = "gpufleet-hostile", ns
		if pod.Spec.Containers == nil {
			pod.Spec.Containers = []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}}
		}
		_, err := cl.Pods(ns).Create(fr.ctx, pod, metav1.CreateOptions{})
		switch {
		case err == nil:
			_ = cl.Pods(ns).Delete(fr.ctx, pod.Name, metav1.DeleteOptions{})
			t.Errorf("%s: %s was admitted", ns, what)
		case !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "ValidatingAdmissionPolicy") || !strings.Contains(err.Error(), "tenant "):
			t.Errorf("%s: %s refused, but not by the tenant's policy: %v", ns, what, err)
		default:
			fr.st.Hostile++
		}
	}
	for _, tn := range fr.res.Fleet.Tenants {
		ns := tn.Spec.Namespaces[0]
		if tainted != nil {
			p := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: pool}}
			for _, tt := range tainted {
				p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: tt.Key, Operator: corev1.TolerationOpEqual, Value: tt.Value, Effect: tt.Effect})
			}
			try(ns, "a CPU pod of no class tolerating a tainted pool", p)
		}
		for _, c := range tn.Spec.Classes {
			dc := fr.res.Fleet.Class(c)
			for _, pr := range fr.res.Fleet.Priorities {
				if pr.Name == dc.Spec.Priority {
					continue
				}
				p := &corev1.Pod{ObjectMeta: *dc.Template.ObjectMeta.DeepCopy(), Spec: *dc.Template.Spec.DeepCopy()}
				p.Spec.PriorityClassName = pr.Name
				try(ns, fmt.Sprintf("a pod of class %s at PriorityClass %s", c, pr.Name), p)
				break
			}
		}
	}
}

// keepParamInformer creates, once per control plane, a binding that names
// a ConfigMap paramKind and matches no namespace, never deleted. The API
// server stops its informer of a built-in paramKind for good once no
// binding names that kind for one policy refresh (kubernetes/kubernetes
// issue 130887, pull request 141015, open at v1.36.5): a fleet's cleanup
// deletes every binding, and the next fleet's policies would find no
// params ("no params found for policy binding with `Deny`
// parameterNotFoundAction"). A cluster keeps its bindings; docs/tree.md
// says how not to lose them all at once.
func keepParamInformer(ctx context.Context, cp *ControlPlane) error {
	adm := cp.Client.AdmissionregistrationV1()
	fail := admissionv1.Fail
	_, err := adm.ValidatingAdmissionPolicies().Create(ctx, &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-keep-configmap-params"},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			ParamKind:        &admissionv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{Operations: []admissionv1.OperationType{admissionv1.Create}, Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}}},
			FailurePolicy:    &fail,
			Validations:      []admissionv1.Validation{{Expression: "true"}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	allow := admissionv1.AllowAction
	_, err = adm.ValidatingAdmissionPolicyBindings().Create(ctx, &admissionv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-keep-configmap-params"},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        "e2e-keep-configmap-params",
			ParamRef:          &admissionv1.ParamRef{Name: "none", Namespace: "kube-system", ParameterNotFoundAction: &allow},
			MatchResources:    &admissionv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"e2e.gpufleet.dev/none": "none"}}},
			ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
		},
	}, metav1.CreateOptions{})
	return err
}
