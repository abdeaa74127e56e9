package kubeapiserver

import (
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	"k8s.io/kubernetes/pkg/apis/admissionregistration/validation"
	"k8s.io/kubernetes/pkg/generated/openapi"
)

// typeChecker is the API server's: it resolves the schemas of the kinds a
// policy matches and of namespaceObject from the OpenAPI definitions
// kube-apiserver v1.36.5 serves, as the ValidatingAdmissionPolicy status
// controller does (pkg/controller/validatingadmissionpolicystatus).
func typeChecker() *validating.TypeChecker {
	return &validating.TypeChecker{
		SchemaResolver: resolver.NewDefinitionsSchemaResolver(openapi.GetOpenAPIDefinitions, legacyscheme.Scheme),
		RestMapper:     Mapper(),
	}
}

// TestTypeCheck: every policy's CEL type-checks against the schemas of
// Pod, Deployment, StatefulSet, Job and Namespace (namespaceObject), with no
// warning: the status controller would set each as an
// expressionWarning on the policy.
func TestTypeCheck(t *testing.T) {
	tc := typeChecker()
	checked := 0
	for _, f := range fleets(t) {
		for _, p := range f.tree.Policies {
			for _, w := range tc.Check(p) {
				t.Errorf("%s: policy %s: %s: %s", f.name, p.Name, w.FieldRef, w.Warning)
			}
			checked++
		}
	}
	t.Logf("%d policies type-checked", checked)
}

// TestTypeCheckCatchesABug: a misspelled field is a warning.
func TestTypeCheckCatchesABug(t *testing.T) {
	p := fleets(t)[0].tree.Policies[0].DeepCopy()
	p.Spec.Validations = append(p.Spec.Validations, admissionv1.Validation{Expression: "object.spec.tolerration.size() == 0"})
	if w := typeChecker().Check(p); len(w) == 0 {
		t.Fatal("the type checker passed object.spec.tolerration")
	}
}

// TestCreateValidation: kube-apiserver's own validation of a created
// policy and binding (k8s.io/kubernetes pkg/apis/admissionregistration/
// validation), which compiles every expression with the CEL environment
// and cost limits of the API server's minor: a policy it refuses never
// reaches the cluster.
func TestCreateValidation(t *testing.T) {
	n := 0
	for _, f := range fleets(t) {
		for _, p := range f.tree.Policies {
			var in admissionregistration.ValidatingAdmissionPolicy
			if err := legacyscheme.Scheme.Convert(p, &in, nil); err != nil {
				t.Fatal(err)
			}
			for _, e := range validation.ValidateValidatingAdmissionPolicy(&in) {
				t.Errorf("%s: policy %s: %v", f.name, p.Name, e)
			}
			n++
		}
		for _, b := range f.tree.Bindings {
			var in admissionregistration.ValidatingAdmissionPolicyBinding
			if err := legacyscheme.Scheme.Convert(b, &in, nil); err != nil {
				t.Fatal(err)
			}
			for _, e := range validation.ValidateValidatingAdmissionPolicyBinding(&in) {
				t.Errorf("%s: binding %s: %v", f.name, b.Name, e)
			}
			n++
		}
	}
	t.Logf("%d policies and bindings valid", n)
}
