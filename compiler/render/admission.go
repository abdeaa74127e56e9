package render

import (
	"path"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// The admission policies (issue 48): two ValidatingAdmissionPolicies in
// cluster/, one for pods and one for the pod templates of the workload
// kinds the tree knows, and their bindings, one per policy and action in
// use, each selecting the tenant namespaces labelled with that action
// (keys.LabelAdmission). A tenant's parameters are annotations on its
// namespaces (derive.Admission), so the tree has no object per tenant for
// them: XL's 10,000 tenants wrote 10,000 admission.yaml files before.
const (
	PodPolicy      = "gpufleet-pods"
	WorkloadPolicy = "gpufleet-workloads"
)

// admissionActions are the tenants' admissions, each once, in the order
// their bindings are written.
var admissionActions = []string{"Deny", "Warn", "Audit"}

func (r *renderer) admissionPolicies() []string {
	if len(r.d.Tenants) == 0 {
		return nil
	}
	ctrls := r.d.Controllers()
	objs := []any{
		admissionPolicy(PodPolicy, "object.spec", "object.metadata", true, ctrls, admissionv1.Rule{
			APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"},
		}),
		admissionPolicy(WorkloadPolicy, "object.spec.template.spec", "object.spec.template.metadata", false, ctrls,
			admissionv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments", "statefulsets"}},
			admissionv1.Rule{APIGroups: []string{"batch"}, APIVersions: []string{"v1"}, Resources: []string{"jobs"}},
		),
	}
	policies := []string{PodPolicy, WorkloadPolicy}
	if r.usesMLKinds() {
		objs = append(objs, mlPolicy(ctrls))
		policies = append(policies, MLPolicy)
	}
	used := map[string]bool{}
	for _, t := range r.d.Tenants {
		used[TenantAdmission(t.Spec.Admission)] = true
	}
	for _, action := range admissionActions {
		if !used[action] {
			continue
		}
		for _, policy := range policies {
			objs = append(objs, admissionBinding(policy, action))
		}
	}
	objs = append(objs, r.unownedObjects()...)
	r.emit(tree.AdmissionPoliciesPath, objs...)
	return []string{path.Base(tree.AdmissionPoliciesPath)}
}

// TenantAdmission is a tenant's admission as its namespaces' label says
// it: its spec's, Deny when it sets none.
func TenantAdmission(admission string) string {
	if admission == "" {
		return "Deny"
	}
	return admission
}

// AdmissionBinding names the binding of a policy for the namespaces
// labelled with an action.
func AdmissionBinding(policy, action string) string {
	return policy + "-" + strings.ToLower(action)
}

func admissionBinding(policy, action string) *admissionv1.ValidatingAdmissionPolicyBinding {
	return &admissionv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: meta0(AdmissionBinding(policy, action)),
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: policy,
			MatchResources: &admissionv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{keys.LabelAdmission: action},
			}},
			ValidationActions: keys.AdmissionActions(action),
		},
	}
}

func admissionPolicy(name, spec, meta string, pod bool, controllers []string, rules ...admissionv1.Rule) *admissionv1.ValidatingAdmissionPolicy {
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
	validations := admissionValidations(spec, "object.metadata", pod, controllers)
	return &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: meta0(name),
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: rr},
			FailurePolicy:    &fail,
			Variables:        admissionVariables(spec, meta),
			Validations:      validations,
		},
	}
}

func meta0(name string) metav1.ObjectMeta { return meta(name, "", nil) }
