package compiler_test

import (
	"bytes"
	"fmt"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/verify"
	"github.com/gpufleet/gpufleet/compiler/wire/karpenter"
	"github.com/gpufleet/gpufleet/compiler/wire/mlkinds"
)

// docs splits a generated YAML stream into its documents.
func docs(b []byte) [][]byte {
	var out [][]byte
	for _, d := range bytes.Split(b, []byte("\n---\n")) {
		if len(bytes.TrimSpace(d)) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// decodeStrict decodes one document into its k8s.io/api (or kustomize)
// type, rejecting unknown fields, and validates what apimachinery can.
func decodeStrict(doc []byte) (any, field.ErrorList, error) {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return nil, nil, err
	}
	var obj any
	switch tm.APIVersion + "/" + tm.Kind {
	case "v1/Namespace":
		obj = &corev1.Namespace{}
	case "v1/ResourceQuota":
		obj = &corev1.ResourceQuota{}
	case "v1/LimitRange":
		obj = &corev1.LimitRange{}
	case "v1/ConfigMap":
		obj = &corev1.ConfigMap{} // the kube-scheduler config it holds: render's TestSchedulerConfigStrict
	case "scheduling.k8s.io/v1/PriorityClass":
		obj = &schedulingv1.PriorityClass{}
	case "v1/ServiceAccount":
		obj = &corev1.ServiceAccount{}
	case "rbac.authorization.k8s.io/v1/ClusterRoleBinding":
		obj = &rbacv1.ClusterRoleBinding{}
	case "rbac.authorization.k8s.io/v1/RoleBinding":
		obj = &rbacv1.RoleBinding{}
	case "rbac.authorization.k8s.io/v1/Role":
		obj = &rbacv1.Role{}
	case "apps/v1/Deployment":
		obj = &appsv1.Deployment{}
	case "apps/v1/StatefulSet":
		obj = &appsv1.StatefulSet{}
	case "batch/v1/Job":
		obj = &batchv1.Job{}
	case "v1/Service":
		obj = &corev1.Service{}
	case "policy/v1/PodDisruptionBudget":
		obj = &policyv1.PodDisruptionBudget{}
	case "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy":
		obj = &admissionv1.ValidatingAdmissionPolicy{} // its CEL: ladder/kube-apiserver's TestTypeCheck
	case "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding":
		obj = &admissionv1.ValidatingAdmissionPolicyBinding{}
	case "resource.k8s.io/v1/DeviceClass":
		obj = &resourcev1.DeviceClass{} // and e2e's kube-apiserver compiles its CEL
	case "resource.k8s.io/v1/ResourceClaimTemplate":
		obj = &resourcev1.ResourceClaimTemplate{} // and e2e's kube-apiserver validates it whole
	case types.KustomizationVersion + "/" + types.KustomizationKind, types.ComponentVersion + "/" + types.ComponentKind:
		obj = &types.Kustomization{}
	case "eksctl.io/v1alpha5/ClusterConfig":
		return nil, nil, nil // checked against eksctl's JSON Schema elsewhere
	// The ML kinds' examples: and against their CRDs in TestMLKindsCRDs.
	case mlkinds.JobSetAPIVersion + "/JobSet":
		obj = &mlkinds.JobSet{}
	case mlkinds.LeaderWorkerSetAPIVersion + "/LeaderWorkerSet":
		obj = &mlkinds.LeaderWorkerSet{}
	case mlkinds.RayAPIVersion + "/RayJob":
		obj = &mlkinds.RayJob{}
	case mlkinds.RayAPIVersion + "/RayCluster":
		obj = &mlkinds.RayCluster{}
	case mlkinds.KubeflowAPIVersion + "/PyTorchJob":
		obj = &mlkinds.PyTorchJob{}
	}
	if obj == nil && (strings.HasPrefix(tm.APIVersion, "karpenter.sh/") || strings.HasPrefix(tm.APIVersion, "karpenter.k8s.aws/")) {
		return nil, nil, nil // checked against Karpenter's CRDs in render's TestKarpenterCRDs
	}
	if obj == nil && strings.HasPrefix(tm.APIVersion, "kueue.x-k8s.io/") {
		return nil, nil, nil // checked against Kueue's CRDs in TestKueueCRDs
	}
	if obj == nil {
		return nil, nil, fmt.Errorf("unexpected object %s %s", tm.APIVersion, tm.Kind)
	}
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		return nil, nil, err
	}
	return obj, validateObject(obj), nil
}

func validateObject(obj any) field.ErrorList {
	md := field.NewPath("metadata")
	switch o := obj.(type) {
	case *corev1.Namespace:
		return apivalidation.ValidateObjectMeta(&o.ObjectMeta, false, apivalidation.ValidateNamespaceName, md)
	case *corev1.ResourceQuota:
		errs := apivalidation.ValidateObjectMeta(&o.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, md)
		for name := range o.Spec.Hard {
			errs = append(errs, qualified(string(name), field.NewPath("spec", "hard"))...)
		}
		return errs
	case *corev1.LimitRange:
		return apivalidation.ValidateObjectMeta(&o.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, md)
	case *resourcev1.ResourceClaimTemplate:
		return apivalidation.ValidateObjectMeta(&o.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, md)
	case *resourcev1.DeviceClass:
		return apivalidation.ValidateObjectMeta(&o.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, md)
	case *corev1.ConfigMap:
		return apivalidation.ValidateObjectMeta(&o.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, md)
	case *schedulingv1.PriorityClass:
		return apivalidation.ValidateObjectMeta(&o.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, md)
	case *corev1.ServiceAccount:
		return apivalidation.ValidateObjectMeta(&o.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, md)
	case *rbacv1.Role:
		return apivalidation.ValidateObjectMeta(&o.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, md)
	case *rbacv1.RoleBinding:
		return apivalidation.ValidateObjectMeta(&o.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, md)
	case *rbacv1.ClusterRoleBinding:
		return apivalidation.ValidateObjectMeta(&o.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, md)
	case *appsv1.Deployment:
		// Class examples are namespace-less; the scheduler's is in kube-system.
		errs := apivalidation.ValidateObjectMeta(&o.ObjectMeta, o.Namespace != "", apivalidation.NameIsDNSSubdomain, md)
		errs = append(errs, metav1validation.ValidateLabelSelector(o.Spec.Selector, metav1validation.LabelSelectorValidationOptions{}, field.NewPath("spec", "selector"))...)
		return append(errs, verify.PodTemplate(&o.Spec.Template, field.NewPath("spec", "template"))...)
	case *appsv1.StatefulSet:
		errs := apivalidation.ValidateObjectMeta(&o.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, md)
		return append(errs, verify.PodTemplate(&o.Spec.Template, field.NewPath("spec", "template"))...)
	case *batchv1.Job:
		errs := apivalidation.ValidateObjectMeta(&o.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, md)
		return append(errs, verify.PodTemplate(&o.Spec.Template, field.NewPath("spec", "template"))...)
	case *corev1.Service:
		// A Service's name is a DNS-1035 label (it becomes a DNS name).
		errs := apivalidation.ValidateObjectMeta(&o.ObjectMeta, false, apivalidation.NameIsDNS1035Label, md)
		return append(errs, metav1validation.ValidateLabels(o.Spec.Selector, field.NewPath("spec", "selector"))...)
	case *policyv1.PodDisruptionBudget:
		errs := apivalidation.ValidateObjectMeta(&o.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, md)
		return append(errs, metav1validation.ValidateLabelSelector(o.Spec.Selector, metav1validation.LabelSelectorValidationOptions{}, field.NewPath("spec", "selector"))...)
	}
	return nil
}

func qualified(name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(name) {
		errs = append(errs, field.Invalid(p.Key(name), name, msg))
	}
	return errs
}

// TestObjectsStrict decodes every emitted object strictly into its typed
// struct and validates it.
func TestObjectsStrict(t *testing.T) {
	for _, dir := range exampleFleets(t) {
		res := compile(t, dir)
		kinds := map[string]int{}
		for _, p := range res.Tree.Paths() {
			// Chart values are no object: e2e renders them with the
			// real chart (e2e/deviceplugin.go, renderDevicePlugin), and
			// ladder/karpenter Karpenter's (TestKarpenterChartDRA).
			if !strings.HasSuffix(p, ".yaml") || strings.HasPrefix(p, "agents/") || p == tree.KueueDRAConfigPath || p == karpenter.ValuesPath {
				continue
			}
			for i, doc := range docs(res.Tree[p]) {
				obj, errs, err := decodeStrict(doc)
				if err != nil {
					t.Errorf("%s: %s doc %d: %v", dir, p, i, err)
					continue
				}
				for _, e := range errs {
					t.Errorf("%s: %s doc %d: %v", dir, p, i, e)
				}
				kinds[fmt.Sprintf("%T", obj)]++
			}
		}
		// Every fleet has namespaces, priorities and workloads; a decoder
		// that silently matched nothing would leave these at zero.
		for _, k := range []string{"*v1.Namespace", "*v1.PriorityClass", "*v1.LimitRange", "*types.Kustomization"} {
			if kinds[k] == 0 {
				t.Errorf("%s: no %s decoded (got %v)", dir, k, kinds)
			}
		}
	}
}

// TestValidatorCatchesBadObjects proves the checks above can fail.
func TestValidatorCatchesBadObjects(t *testing.T) {
	bad := map[string]string{
		"unknown field":  "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\nspecc: {}\n",
		"bad name":       "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: Not_A_Label\n",
		"bad label":      "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels:\n    'bad key!': x\n",
		"gpu req != lim": "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  template:\n    spec:\n      containers:\n      - name: main\n        resources:\n          requests: {nvidia.com/gpu: 1}\n",
		"unknown kind":   "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n",
	}
	for name, doc := range bad {
		_, errs, err := decodeStrict([]byte(doc))
		if err == nil && len(errs) == 0 {
			t.Errorf("%s: accepted", name)
		}
	}
}
