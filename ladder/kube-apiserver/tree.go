package kubeapiserver

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install" // the API server's defaults
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// Tree is what the rung reads of a built tree: the policies and their
// bindings, each tenant's namespaces (whose annotations are the policies'
// parameters), and each class's example workload.
type Tree struct {
	Policies   []*admissionv1.ValidatingAdmissionPolicy
	Bindings   []*admissionv1.ValidatingAdmissionPolicyBinding
	Namespaces []*corev1.Namespace
	// Examples by class: the example.yaml's workload.
	Examples map[string]runtime.Object
	// LimitRanges by namespace.
	LimitRanges map[string][]*corev1.LimitRange
}

func kindOf(d []byte) string {
	k, _ := tree.Kind(d)
	return k
}

// Read decodes the tree's files strictly.
func Read(t tree.Tree) (*Tree, error) {
	out := &Tree{Examples: map[string]runtime.Object{}, LimitRanges: map[string][]*corev1.LimitRange{}}
	paths := make([]string, 0, len(t))
	for p := range t {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	decode := func(p string, d []byte, into any) error {
		if err := yaml.UnmarshalStrict(d, into); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		// As the API server stores it: defaulted (an empty
		// namespaceSelector and objectSelector, matchPolicy Equivalent).
		if o, ok := into.(runtime.Object); ok {
			legacyscheme.Scheme.Default(o)
		}
		return nil
	}
	for _, p := range paths {
		switch {
		case p == tree.AdmissionPoliciesPath:
			for _, d := range tree.Docs(t[p]) {
				if kindOf(d) == "ValidatingAdmissionPolicyBinding" {
					v := &admissionv1.ValidatingAdmissionPolicyBinding{}
					if err := decode(p, d, v); err != nil {
						return nil, err
					}
					out.Bindings = append(out.Bindings, v)
					continue
				}
				v := &admissionv1.ValidatingAdmissionPolicy{}
				if err := decode(p, d, v); err != nil {
					return nil, err
				}
				out.Policies = append(out.Policies, v)
			}
		case strings.HasPrefix(p, "tenants/") && path.Base(p) == "namespaces.yaml":
			for _, d := range tree.Docs(t[p]) {
				v := &corev1.Namespace{}
				if err := decode(p, d, v); err != nil {
					return nil, err
				}
				// The API server's NamespaceDefaultLabelName.
				if v.Labels == nil {
					v.Labels = map[string]string{}
				}
				v.Labels[corev1.LabelMetadataName] = v.Name
				out.Namespaces = append(out.Namespaces, v)
			}
		case strings.HasPrefix(p, "tenants/") && path.Base(p) == tree.LimitRangesFile:
			for _, d := range tree.Docs(t[p]) {
				v := &corev1.LimitRange{}
				if err := decode(p, d, v); err != nil {
					return nil, err
				}
				out.LimitRanges[v.Namespace] = append(out.LimitRanges[v.Namespace], v)
			}
		case strings.HasPrefix(p, "classes/") && path.Base(p) == "example.yaml":
			d := tree.Docs(t[p])[0]
			var v runtime.Object
			switch kindOf(d) {
			case "Deployment":
				v = &appsv1.Deployment{}
			case "StatefulSet":
				v = &appsv1.StatefulSet{}
			case "Job":
				v = &batchv1.Job{}
			default:
				if !slices.Contains(keys.RoleKinds, kindOf(d)) {
					return nil, fmt.Errorf("%s: a %s", p, kindOf(d))
				}
				// An ML kind: its roles' pods are judged from the
				// derived templates (Cases); the object itself is kept
				// for its labels.
				v = &unstructured.Unstructured{}
			}
			if err := decode(p, d, v); err != nil {
				return nil, err
			}
			out.Examples[path.Base(path.Dir(p))] = v
		}
	}
	return out, nil
}
