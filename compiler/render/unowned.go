package render

import (
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/keys"
)

// UnownedPolicy holds pods in namespaces no tenant owns off the fleet's
// tainted pools (issue 48): no toleration of a pool's taint (nor of every
// taint), no device, no class label. Its binding selects the namespaces
// without keys.LabelAdmission, so a tenant namespace stripped of that
// label falls under it, and leaves out the exempt ones by name.
const UnownedPolicy = "gpufleet-unowned"

// unownedObjects are the policy and its binding, none when the spec
// turns it off.
func (r *renderer) unownedObjects() []any {
	action := r.d.UnownedAdmission()
	if action == "Off" {
		return nil
	}
	fail := admissionv1.Fail
	scope := admissionv1.NamespacedScope
	quoted := make([]string, 0)
	for _, k := range r.d.PoolTaintKeys() {
		quoted = append(quoted, "'"+k+"'")
	}
	ns := `'namespace ' + namespaceObject.metadata.name + ' belongs to no tenant: '`
	exempt := ` (list it in cluster.unownedNamespaces.exempt if its pods must run on every node)`
	policy := &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: meta0(UnownedPolicy),
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
				Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
				Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}, Scope: &scope},
			}}}},
			FailurePolicy: &fail,
			Variables: []admissionv1.Variable{
				{Name: "taintKeys", Expression: "[" + strings.Join(quoted, ", ") + "]"},
				{Name: "badTolerations", Expression: `has(object.spec.tolerations) ? object.spec.tolerations.filter(t, !has(t.key) || t.key == '' || t.key in variables.taintKeys).map(t, !has(t.key) || t.key == '' ? 'every taint (operator Exists, no key)' : ` + celTolerationEnc + `) : []`},
				{Name: "containers", Expression: celContainers("object.spec")},
				{Name: "badResources", Expression: celBadResources("")},
			},
			Validations: []admissionv1.Validation{{
				Expression:        `!has(object.metadata.labels) || !('` + keys.LabelClass + `' in object.metadata.labels)`,
				MessageExpression: ns + ` + 'a pod of class ' + object.metadata.labels['` + keys.LabelClass + `'] + ' runs only in the namespaces of a tenant that has the class'`,
				Reason:            ptrReason(metav1.StatusReasonForbidden),
			}, {
				Expression:        `variables.badTolerations.size() == 0`,
				MessageExpression: ns + ` + 'its pods may not tolerate ' + variables.badTolerations.join(', ') + ' (key=operator=value=effect), which would let them onto the fleet\'s pools` + exempt + `'`,
				Reason:            ptrReason(metav1.StatusReasonForbidden),
			}, {
				Expression:        `variables.badResources.size() == 0`,
				MessageExpression: ns + ` + 'its pods may not request GPUs or other devices: container ' + variables.badResources.join(', ') + ' does` + exempt + `'`,
				Reason:            ptrReason(metav1.StatusReasonForbidden),
			}},
		},
	}
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: meta0(UnownedPolicy),
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: UnownedPolicy,
			MatchResources: &admissionv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: keys.LabelAdmission, Operator: metav1.LabelSelectorOpDoesNotExist},
					{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: r.d.ExemptNamespaces()},
				},
			}},
			ValidationActions: keys.AdmissionActions(action),
		},
	}
	return []any{policy, binding}
}
