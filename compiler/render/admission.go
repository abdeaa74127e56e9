package render

import (
	"path"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// The admission policies (issue 48): two ValidatingAdmissionPolicies in
// cluster/, one for pods and one for the pod templates of the workload
// kinds the tree knows, parameterised by a ConfigMap per tenant; each
// tenant's tenants/<t>/admission.yaml holds that ConfigMap (in
// kube-system, where tenants cannot edit it) and the two bindings that
// apply the policies to its namespaces.
const (
	PodPolicy       = "gpufleet-pods"
	WorkloadPolicy  = "gpufleet-workloads"
	paramsNamespace = "kube-system"
)

// AdmissionParams is the name of a tenant's parameters ConfigMap.
func AdmissionParams(tenant string) string { return "gpufleet-admission-" + tenant }

func (r *renderer) admissionPolicies() []string {
	if len(r.d.Tenants) == 0 {
		return nil
	}
	r.emit(tree.AdmissionPoliciesPath,
		admissionPolicy(PodPolicy, "object.spec", "object.metadata", true, admissionv1.Rule{
			APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"},
		}),
		admissionPolicy(WorkloadPolicy, "object.spec.template.spec", "object.spec.template.metadata", false,
			admissionv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments", "statefulsets"}},
			admissionv1.Rule{APIGroups: []string{"batch"}, APIVersions: []string{"v1"}, Resources: []string{"jobs"}},
		))
	return []string{path.Base(tree.AdmissionPoliciesPath)}
}

func admissionPolicy(name, spec, meta string, pod bool, rules ...admissionv1.Rule) *admissionv1.ValidatingAdmissionPolicy {
	fail := admissionv1.Fail
	var rr []admissionv1.NamedRuleWithOperations
	for _, rule := range rules {
		scope := admissionv1.NamespacedScope
		rule.Scope = &scope
		rr = append(rr, admissionv1.NamedRuleWithOperations{RuleWithOperations: admissionv1.RuleWithOperations{
			Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update}, Rule: rule,
		}})
	}
	// A workload's own labels carry its queue, not its template's.
	validations := admissionValidations(spec, "object.metadata", pod)
	return &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: meta0(name),
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			ParamKind:        &admissionv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: rr},
			FailurePolicy:    &fail,
			Variables:        admissionVariables(spec, meta),
			Validations:      validations,
		},
	}
}

func meta0(name string) metav1.ObjectMeta { return meta(name, "", nil) }

// tenantAdmission is a tenant's admission.yaml: its parameters and the
// bindings of both policies to its namespaces, with its spec's action.
func tenantAdmission(d *derive.Fleet, t derive.Tenant, labels map[string]string) file {
	objs := []any{&corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: meta(AdmissionParams(t.Name), paramsNamespace, labels),
		Data:       derive.Admission(d, t),
	}}
	deny := admissionv1.DenyAction
	for _, policy := range []string{PodPolicy, WorkloadPolicy} {
		objs = append(objs, &admissionv1.ValidatingAdmissionPolicyBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
			ObjectMeta: meta(policy+"-"+t.Name, "", labels),
			Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName: policy,
				ParamRef:   &admissionv1.ParamRef{Name: AdmissionParams(t.Name), Namespace: paramsNamespace, ParameterNotFoundAction: &deny},
				MatchResources: &admissionv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
					MatchExpressions: []metav1.LabelSelectorRequirement{{
						Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: t.Spec.Namespaces,
					}},
				}},
				ValidationActions: ValidationActions(t.Spec.Admission),
			},
		})
	}
	return file{path.Join("tenants", t.Name, tree.AdmissionFile), objs}
}

// ValidationActions are the binding's actions for a tenant's admission:
// Deny by default; Warn also audits, so a rollout's refusals are in the
// audit log as well as the client's output.
func ValidationActions(admission string) []admissionv1.ValidationAction {
	switch admission {
	case "Warn":
		return []admissionv1.ValidationAction{admissionv1.Warn, admissionv1.Audit}
	case "Audit":
		return []admissionv1.ValidationAction{admissionv1.Audit}
	}
	return []admissionv1.ValidationAction{admissionv1.Deny}
}
