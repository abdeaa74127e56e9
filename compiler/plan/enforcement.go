package plan

import (
	"path"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// A tenant's enforcement is what the API server does with what its
// admission policies refuse: the validationActions of the bindings that
// select its namespaces (issue 48), "Deny", "Warn+Audit" or "Audit"; ""
// with none. Its namespaces' label keys.LabelAdmission names them.

// IsAdmission says whether p is a tenant's admission file, which trees
// built before the parameters moved onto the namespaces have: their
// bindings still say the tenant's enforcement, so a plan across that
// change compares like with like.
func IsAdmission(p string) bool {
	return strings.HasPrefix(p, "tenants/") && path.Base(p) == tree.AdmissionFile
}

// TenantEnforcement is a tenant's enforcement, as one file says it.
type TenantEnforcement struct {
	Tenant, Actions string
}

func actions(a []admissionv1.ValidationAction) string {
	s := make([]string, len(a))
	for i, x := range a {
		s[i] = string(x)
	}
	return strings.Join(s, "+")
}

// namespaceEnforcement is the enforcement a tenant namespace's labels
// select, "" when they select no binding.
func namespaceEnforcement(labels map[string]string) string {
	a, ok := labels[keys.LabelAdmission]
	if !ok {
		return ""
	}
	return actions(keys.AdmissionActions(a))
}

func typedEnforcement(objs []any) (File, bool) {
	var f File
	for _, o := range objs {
		if b, ok := tree.As[admissionv1.ValidatingAdmissionPolicyBinding](o); ok {
			f.Enforcement = append(f.Enforcement, TenantEnforcement{TenantOf(b.Labels), actions(b.Spec.ValidationActions)})
		}
	}
	return f, true
}

func readEnforcement(b []byte) ([]TenantEnforcement, error) {
	var out []TenantEnforcement
	for _, d := range tree.Docs(b) {
		var o struct {
			Kind     string `json:"kind"`
			Metadata meta   `json:"metadata"`
			Spec     struct {
				ValidationActions []admissionv1.ValidationAction `json:"validationActions"`
			} `json:"spec"`
		}
		if err := tree.Unmarshal(d, &o); err != nil {
			return nil, err
		}
		if o.Kind == "ValidatingAdmissionPolicyBinding" {
			out = append(out, TenantEnforcement{TenantOf(o.Metadata.Labels), actions(o.Spec.ValidationActions)})
		}
	}
	return out, nil
}

// strictness orders enforcements: refusing is stricter than warning,
// warning than auditing, auditing than nothing.
func strictness(actions string) int {
	switch {
	case strings.Contains(actions, "Deny"):
		return 3
	case strings.Contains(actions, "Warn"):
		return 2
	case actions != "":
		return 1
	}
	return 0
}

// enforcementChange is how a tenant's enforcement moved, nil if not.
func enforcementChange(before, after string) *EnforcementChange {
	if before == after {
		return nil
	}
	c := &EnforcementChange{Before: before, After: after, Change: "tightens"}
	if strictness(after) < strictness(before) {
		c.Change = "loosens"
	}
	return c
}

// EnforcementChange is a tenant's admission policies' action before and
// after, and whether the change loosens or tightens it.
type EnforcementChange struct {
	Before string `json:"before"`
	After  string `json:"after"`
	Change string `json:"change"`
}

func (e *EnforcementChange) describe() string {
	return "admission policies: " + orNone(e.Before) + " → " + orNone(e.After) + " (" + e.Change + " enforcement)"
}
